// The question page's time left (quizzes/jinja2/quizzes/attempt_question.html): the deadline
// as a clock time, rendered by the server, becomes a countdown. The server's clock decides:
// the page carries the deadline and the server's now, and the difference between that now
// and this browser's clock on load corrects every reading of the browser's clock. Digits are
// the page language's (Intl.NumberFormat, from CLDR). A screen reader hears the time left
// only at the intervals the server gives sentences for, in a polite live region. A teacher may
// move the deadline while the page is open (an extension, an early close): the page asks the
// server for it every few seconds the server says (data-countdown-poll), and again at zero
// before it says the time is up, so that it never says so of time a teacher has given back.
// Once the server's grace has passed it reloads: the server finishes the attempt and shows
// its result; so does an attempt the server says is finished.
(function () {
  "use strict";

  var box = document.querySelector("[data-countdown-deadline]");
  if (!box) {
    return;
  }
  var deadline = Date.parse(box.dataset.countdownDeadline);
  var pollEvery = Number(box.dataset.countdownPoll) * 1000;
  var pollUrl = box.dataset.countdownUrl;
  var offset = Date.parse(box.dataset.countdownNow) - Date.now();
  var grace = Number(box.dataset.countdownGrace) * 1000;
  var announcements = JSON.parse(box.dataset.announcements);
  var thresholds = Object.keys(announcements).map(Number).sort(function (a, b) { return b - a; });
  var timeIsUp = box.dataset.timeIsUp;
  var live = box.querySelector(".time-left-live");
  var clock = box.querySelector(".countdown");
  var announcer = box.querySelector(".countdown-announcer");
  var digits = new Intl.NumberFormat(document.documentElement.lang || undefined, {
    minimumIntegerDigits: 2,
    useGrouping: false,
  });
  var plain = new Intl.NumberFormat(document.documentElement.lang || undefined, { useGrouping: false });

  function serverNow() {
    return Date.now() + offset;
  }

  function secondsLeft() {
    return Math.max(Math.ceil((deadline - serverNow()) / 1000), 0);
  }

  function formatted(seconds) {
    var hours = Math.floor(seconds / 3600);
    var minutes = Math.floor((seconds % 3600) / 60);
    var rest = seconds % 60;
    if (hours > 0) {
      return plain.format(hours) + ":" + digits.format(minutes) + ":" + digits.format(rest);
    }
    return digits.format(minutes) + ":" + digits.format(rest);
  }

  // Only a threshold crossed while the page is open is announced (not the one the page
  // loaded under), and of several crossed at once (a sleeping laptop), the last.
  var announced = secondsLeft();

  function announce(seconds) {
    var due = null;
    thresholds.forEach(function (threshold) {
      if (seconds <= threshold && announced > threshold) {
        due = threshold;
      }
    });
    announced = seconds;
    if (due !== null) {
      announcer.textContent = announcements[String(due)];
    }
  }

  var reloading = false;
  var timer = null;
  // Zero was reached and the server has not yet confirmed the deadline since.
  var confirming = false;

  function reload() {
    if (!reloading) {
      reloading = true;
      window.location.reload();
    }
  }

  // Ask the server for the attempt's deadline as it stands; settles even offline (then the
  // page keeps what it had).
  function check() {
    if (!pollUrl || !window.fetch) {
      return Promise.resolve();
    }
    return window
      .fetch(pollUrl, { credentials: "same-origin", cache: "no-store", headers: { Accept: "application/json" } })
      .then(function (response) {
        return response.ok ? response.json() : null;
      })
      .then(function (status) {
        if (!status) {
          return;
        }
        // Finished, or no longer timed (the limit and close date taken away): the server's page says so.
        if (status.state !== "in_progress" || !status.deadline) {
          reload();
          return;
        }
        var moved = Date.parse(status.deadline);
        if (moved !== deadline) {
          deadline = moved;
          announced = secondsLeft();
          box.dataset.countdownDeadline = status.deadline;
        }
      })
      .catch(function () {});
  }

  function schedule(wait) {
    window.clearTimeout(timer);
    timer = window.setTimeout(tick, wait);
  }

  // After an answer from the server: show it now, and count on from there.
  function retick() {
    window.clearTimeout(timer);
    tick();
  }

  if (pollEvery > 0) {
    window.setInterval(function () {
      check().then(retick);
    }, pollEvery);
  }

  function tick() {
    var seconds = secondsLeft();
    if (seconds === 0 && !confirming && clock.textContent !== timeIsUp) {
      confirming = true;
      clock.textContent = formatted(0);
      check().then(retick);
      return;
    }
    if (seconds > 0) {
      confirming = false;
      clock.textContent = formatted(seconds);
      announce(seconds);
    } else if (clock.textContent !== timeIsUp) {
      clock.textContent = timeIsUp;
      announcer.textContent = timeIsUp;
      announced = 0;
    }
    if (seconds === 0 && serverNow() > deadline + grace) {
      reload();
      return;
    }
    // The next whole second of the time left.
    var wait = (deadline - serverNow()) % 1000;
    schedule(wait > 0 ? wait + 20 : 1000);
  }

  box.querySelector(".time-left-static").hidden = true;
  live.hidden = false;
  tick();
})();
