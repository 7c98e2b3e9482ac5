// The service worker: an attempt's question pages and their static files stay on the phone
// for when the connection drops, and an answer submitted meanwhile waits in IndexedDB until
// the phone is back online. quizzes/web/offline.py serves it at the site's root (its scope
// is every page), with VERSION, STATIC_URL and ANSWER_URL defined before this.
//
// Only what the student was already served is kept, and fetched first from the network:
// a question page shows its answer key only once its answer is recorded, so nothing kept
// here holds the key of a question still to answer. A waiting answer goes to the API's
// answer endpoint with an Idempotency-Key: however often it is sent again (a dropped
// reply, two tabs), it is recorded once.
"use strict";

var CACHE = "lms-offline-" + VERSION;
var QUEUE_DB = "lms-offline";
var QUEUE = "answers";
// A question page of an attempt (quizzes/web/urls.py, under the language prefix).
var QUESTION_PAGE = /^\/([\w-]+)\/attempts\/(\d+)\/questions\/\d+\/$/;
// Logging out (lms/urls.py): the next person on this phone finds none of the pages kept.
var LOG_OUT = /^\/[\w-]+\/accounts\/logout\/$/;
var sending = null;

self.addEventListener("install", function (event) {
  event.waitUntil(self.skipWaiting());
});

self.addEventListener("activate", function (event) {
  // A new deploy's worker drops what the old one kept; the waiting answers stay.
  event.waitUntil(
    caches
      .keys()
      .then(function (names) {
        return Promise.all(
          names
            .filter(function (name) {
              return name.indexOf("lms-offline-") === 0 && name !== CACHE;
            })
            .map(function (name) {
              return caches.delete(name);
            }),
        );
      })
      .then(function () {
        return self.clients.claim();
      }),
  );
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) {
    return;
  }
  if (request.mode === "navigate" && QUESTION_PAGE.test(url.pathname)) {
    if (request.method === "GET") {
      event.respondWith(kept(event));
    } else if (request.method === "POST") {
      event.respondWith(answerPosted(request, url));
    }
  } else if (request.mode === "navigate" && request.method === "POST" && LOG_OUT.test(url.pathname)) {
    event.respondWith(
      caches.delete(CACHE).then(function () {
        return fetch(request);
      }),
    );
  } else if (request.method === "GET" && url.pathname.indexOf(STATIC_URL) === 0) {
    event.respondWith(kept(event));
  }
});

self.addEventListener("message", function (event) {
  var data = event.data || {};
  if (data.type === "remember") {
    event.waitUntil(remember(data.urls || []));
  } else if (data.type === "status") {
    event.waitUntil(
      queued(data.page).then(function (entry) {
        event.source.postMessage({ type: "status", page: data.page, choice: entry ? entry.choice : null });
      }),
    );
  } else if (data.type === "send") {
    event.waitUntil(sendAll(data.csrfToken));
  }
});

// The network's response, kept for later; the one kept when the network is out of reach.
function kept(event) {
  var request = event.request;
  var key = request.url.split("#")[0];
  return fetch(request).then(
    function (response) {
      if (response.ok && !response.redirected) {
        var copy = response.clone();
        event.waitUntil(
          caches.open(CACHE).then(function (cache) {
            return cache.put(key, copy);
          }),
        );
      }
      return response;
    },
    function () {
      return caches.match(key, { cacheName: CACHE }).then(function (response) {
        return response || Response.error();
      });
    },
  );
}

// The page first loaded before this worker controlled it: keep it and its files now.
function remember(urls) {
  return caches.open(CACHE).then(function (cache) {
    return Promise.all(
      urls
        .filter(function (address) {
          var url = new URL(address, self.location.href);
          return (
            url.origin === self.location.origin &&
            (QUESTION_PAGE.test(url.pathname) || url.pathname.indexOf(STATIC_URL) === 0)
          );
        })
        .map(function (address) {
          var url = new URL(address, self.location.href);
          url.hash = "";
          return cache.match(url.href).then(function (found) {
            if (found) {
              return null;
            }
            return fetch(url.href, { credentials: "same-origin" }).then(
              function (response) {
                return response.ok && !response.redirected ? cache.put(url.href, response) : null;
              },
              function () {
                return null;
              },
            );
          });
        }),
    );
  });
}

// The form's answer; when it cannot reach the server, kept to send later, and the page
// shown again (from the cache), where it says so.
function answerPosted(request, url) {
  var fields = request.clone().formData();
  return fetch(request).catch(function () {
    return fields.then(function (form) {
      var match = QUESTION_PAGE.exec(url.pathname);
      var question = Number(form.get("question"));
      var choice = Number(form.get("choice"));
      var again = Response.redirect(url.pathname, 303);
      if (!question || !choice) {
        return again;
      }
      return queue(function (store) {
        store.put({
          page: url.pathname,
          url: ANSWER_URL.replace("/0/", "/" + match[2] + "/") + "?lang=" + encodeURIComponent(match[1]),
          question: question,
          choice: choice,
          csrfToken: form.get("csrfmiddlewaretoken") || "",
          key: self.crypto.randomUUID(),
        });
      }, "readwrite").then(function () {
        return again;
      });
    });
  });
}

// ``csrfToken``: the one of the page that asks, fresher than an answer's own when the
// student has logged in again since (a login gives a new token).
function sendAll(csrfToken) {
  if (!sending) {
    sending = queue(function (store) {
      return store.getAll();
    })
      .then(function (entries) {
        return Promise.all(
          entries.map(function (entry) {
            return send(entry, csrfToken || entry.csrfToken);
          }),
        );
      })
      .finally(function () {
        sending = null;
      });
  }
  return sending;
}

function send(entry, csrfToken) {
  return fetch(entry.url, {
    method: "POST",
    credentials: "same-origin",
    headers: {
      "Content-Type": "application/json",
      "X-CSRFToken": csrfToken,
      "Idempotency-Key": entry.key,
    },
    body: JSON.stringify({ question: entry.question, choice: entry.choice }),
  }).then(
    function (response) {
      // The server could not answer now: the same key later is still the same one answer.
      if (response.status >= 500 || response.status === 429) {
        return null;
      }
      // The session has ended: the answer waits for the student to log in again.
      if (response.status === 401) {
        return tell({ type: "login", page: entry.page });
      }
      // Recorded, or refused for good (already answered, past the deadline): the page,
      // read again from the server, shows which.
      return queue(function (store) {
        store.delete(entry.page);
      }, "readwrite")
        .then(function () {
          return caches.open(CACHE);
        })
        .then(function (cache) {
          return cache.delete(entry.page);
        })
        .then(function () {
          return tell({ type: "sent", page: entry.page });
        });
    },
    function () {
      return null; // still offline: it waits
    },
  );
}

// Every open page of the site hears ``message``; the one it is about acts on it.
function tell(message) {
  return self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (clients) {
    clients.forEach(function (client) {
      client.postMessage(message);
    });
  });
}

function queued(page) {
  if (!page) {
    return Promise.resolve(null);
  }
  return queue(function (store) {
    return store.get(page);
  });
}

// Run ``work(store)`` in a transaction on the queue; its request's result, once committed.
function queue(work, mode) {
  return new Promise(function (resolve, reject) {
    var opening = self.indexedDB.open(QUEUE_DB, 1);
    opening.onupgradeneeded = function () {
      opening.result.createObjectStore(QUEUE, { keyPath: "page" });
    };
    opening.onerror = function () {
      reject(opening.error);
    };
    opening.onsuccess = function () {
      var db = opening.result;
      var transaction = db.transaction(QUEUE, mode || "readonly");
      var request = work(transaction.objectStore(QUEUE));
      transaction.oncomplete = function () {
        db.close();
        resolve(request ? request.result : undefined);
      };
      transaction.onerror = transaction.onabort = function () {
        db.close();
        reject(transaction.error);
      };
    };
  });
}
