// An unanswered question page (quizzes/jinja2/quizzes/attempt_question.html) with the service
// worker (quizzes/static/quizzes/service-worker.js): the page and its files are kept on the
// phone; an answer submitted without a connection waits there, and the page says so in the
// student's language (the sentences come from the page), until the phone is back online and
// the answer is sent; the page then reloads with its feedback. If the session has ended, the
// answer waits for the student to log in again (the page says so, with the way back here),
// and goes with the new session's token. Without JavaScript or a
// service worker the form posts as it always does.
(function () {
  "use strict";

  // While an answer waits and the phone says it is online, it is sent again this often: the
  // "online" event can come before the connection carries anything, or the server be down.
  var RETRY_MS = 5000;
  var status = document.querySelector("[data-service-worker]");
  if (!status || !("serviceWorker" in navigator)) {
    return;
  }
  var page = window.location.pathname;
  var workers = navigator.serviceWorker;
  var worker = null;
  var waiting = false;
  var loggedOut = false;
  var form = status.closest("form");
  var csrfToken = form.querySelector('input[name="csrfmiddlewaretoken"]').value;

  function send() {
    if (worker && navigator.onLine && !loggedOut) {
      worker.postMessage({ type: "send", csrfToken: csrfToken });
    }
  }

  function say() {
    if (loggedOut) {
      var link = document.createElement("a");
      link.href = status.dataset.loginUrl;
      link.textContent = status.dataset.loginLink;
      status.textContent = status.dataset.login + " ";
      status.appendChild(link);
    } else if (waiting) {
      status.textContent = navigator.onLine ? status.dataset.sending : status.dataset.saved;
    }
  }

  function showWaiting(choice) {
    var chosen = form.querySelector('input[name="choice"][value="' + String(Number(choice)) + '"]');
    if (chosen) {
      chosen.checked = true;
    }
    // One answer per question: the waiting one is final, as a recorded one is.
    form.querySelector("fieldset").disabled = true;
    form.querySelector('[type="submit"]').disabled = true;
    if (!waiting) {
      waiting = true;
      window.setInterval(send, RETRY_MS);
    }
    say();
  }

  workers.addEventListener("message", function (event) {
    var data = event.data || {};
    if (data.page !== page) {
      return;
    }
    if (data.type === "status" && data.choice) {
      showWaiting(data.choice);
    } else if (data.type === "login") {
      loggedOut = true;
      say();
    } else if (data.type === "sent") {
      // The same page again, from the server, at its feedback.
      window.history.replaceState(null, "", page + "#feedback");
      window.location.reload();
    }
  });
  window.addEventListener("online", function () {
    say();
    send();
  });
  window.addEventListener("offline", say);

  workers
    .register(status.dataset.serviceWorker, { scope: "/" })
    .then(function () {
      return workers.ready;
    })
    .then(function (registration) {
      worker = registration.active;
      var files = performance.getEntriesByType("resource").map(function (entry) {
        return entry.name;
      });
      worker.postMessage({ type: "remember", urls: [window.location.href].concat(files) });
      worker.postMessage({ type: "status", page: page });
      send();
    })
    .catch(function () {
      // No worker (a private window, storage full): the form works as without JavaScript.
    });
})();
