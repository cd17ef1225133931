"""The rater web app (Flask): one page per item, reached only through a rater's secret link.

`GET /r/<token>` shows the rater's current item (or the thank-you page), `POST /r/<token>` stores
the answer and moves on. Nothing else is served: no listing of raters, items or answers. Texts
are shown without the system that wrote them; a comparison's candidates in the rater's own
seeded order. Refusals are an error page with the matching HTTP status and change nothing.
"""
from __future__ import annotations

import time
from pathlib import Path

from flask import Flask, Response, abort, redirect, render_template, request, url_for
from werkzeug.exceptions import HTTPException

from grue.human.answers import current_item, rater_for_token, shown_order, submit
from grue.human.db import open_database
from grue.human.study import load_study
from grue.human.validate import AnswerRefused

MAX_FORM_BYTES = 64 * 1024
SECURITY_HEADERS = {
    "Cache-Control": "no-store",  # a shared computer's back button must not show another rater's page
    "Referrer-Policy": "no-referrer",  # the token is in the URL
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'self'; form-action 'self'; frame-ancestors 'none'",
}


def create_app(study_dir: Path | str) -> Flask:
    study = load_study(study_dir)
    engine = open_database(study.db_path)
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = MAX_FORM_BYTES

    def rater_or_404(token: str) -> str:
        rater = rater_for_token(engine, token)
        if rater is None:
            abort(404, "This rater link is not valid. Check that you copied all of it.")
        return rater

    @app.get("/r/<token>")
    def rater(token: str):
        rater_id = rater_or_404(token)
        progress = current_item(engine, rater_id)
        if progress.item_id is None:
            return render_template("done.html", progress=progress)
        item = study.items[progress.item_id]
        waited = time.time() - (progress.shown_at or time.time())
        wait_s = max(0, int(round(float(study.protocol.get("min_read_seconds", 0)) - waited))) \
            if study.kind == "ratings" else 0
        return render_template(
            "item.html", token=token, item=item, progress=progress, kind=study.kind, axes=study.axes,
            scale=study.scale, protocol=study.protocol, show_prompt=study.protocol["show_prompt"],
            order=shown_order(study, rater_id, item.id), wait_s=wait_s)

    @app.get("/favicon.ico")
    def favicon():
        return "", 204  # browsers ask for one; an empty answer keeps their consoles free of 404s

    @app.post("/r/<token>")
    def answer(token: str):
        rater_id = rater_or_404(token)
        repeated = [key for key, values in request.form.lists() if len(values) > 1]
        if repeated:
            raise AnswerRefused(f"field(s) {', '.join(repeated)} sent more than once: the form was altered")
        fields = request.form.to_dict()
        item_id = fields.pop("item", None)
        if not item_id:
            raise AnswerRefused("the form names no item: it was altered")
        submit(engine, study, rater_id, item_id, fields)
        return redirect(url_for("rater", token=token), code=303)

    @app.errorhandler(AnswerRefused)
    def refused(err: AnswerRefused):
        back = url_for("rater", token=request.view_args["token"]) if request.view_args else None
        return render_template("error.html", title="Answer not accepted", message=str(err), back=back), err.status

    @app.errorhandler(HTTPException)
    def http_error(err: HTTPException):
        return render_template("error.html", title=f"{err.code} {err.name}", message=err.description), err.code

    @app.after_request
    def headers(response: Response) -> Response:
        response.headers.update(SECURITY_HEADERS)
        return response

    return app
