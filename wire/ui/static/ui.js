// Asks before a form marked data-confirm is sent (terminating a session
// ends its connection).
document.addEventListener("submit", function (e) {
  var msg = e.target.getAttribute("data-confirm");
  if (msg && !window.confirm(msg)) e.preventDefault();
});
