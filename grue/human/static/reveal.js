// Rating scales stay hidden until the protocol's minimum reading time has passed (the server
// refuses earlier answers too; this only spares the rater a refused submission).
(function () {
  const scales = document.getElementById("scales");
  if (!scales || !scales.dataset.wait) return;
  let left = Number(scales.dataset.wait);
  const countdown = document.getElementById("countdown");
  const timer = setInterval(function () {
    left -= 1;
    if (countdown) countdown.textContent = String(Math.max(left, 0));
    if (left <= 0) {
      clearInterval(timer);
      scales.hidden = false;
      const wait = document.getElementById("wait");
      if (wait) wait.hidden = true;
    }
  }, 1000);
})();
