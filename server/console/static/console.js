// Tributary console: a little progressive enhancement. Every page works
// without it. A form with data-busy disables its button while it is sent
// and says what is under way; the page's notice or error takes the focus
// so that a screen reader announces it.
"use strict";
document.addEventListener("submit", function (ev) {
  var form = ev.target;
  var busy = form.getAttribute("data-busy");
  if (!busy) {
    return;
  }
  var button = form.querySelector("button[type=submit]");
  if (button) {
    button.disabled = true;
    button.textContent = busy;
  }
});
window.addEventListener("DOMContentLoaded", function () {
  var msg = document.getElementById("error") || document.getElementById("notice");
  if (msg) {
    msg.setAttribute("tabindex", "-1");
    msg.focus();
  }
});
