/* Accessible names for what modeltranslation's tab script builds without one:
   its "all languages" switch. The (translated) name comes from the page, in
   #quizzes-admin-strings, rendered by the content change forms. The switch is
   made in a jQuery ready handler, which may run after window "load": watch
   the document until it appears. */
(function () {
  "use strict";
  function nameTheSwitch() {
    var strings = document.getElementById("quizzes-admin-strings");
    var select = document.getElementById("modeltranslation-main-switch");
    if (!strings || !select) {
      return false;
    }
    if (!select.hasAttribute("aria-label")) {
      select.setAttribute("aria-label", strings.getAttribute("data-language-switch"));
    }
    return true;
  }
  document.addEventListener("DOMContentLoaded", function () {
    if (nameTheSwitch() || !document.getElementById("quizzes-admin-strings")) {
      return;
    }
    var observer = new MutationObserver(function () {
      if (nameTheSwitch()) {
        observer.disconnect();
      }
    });
    observer.observe(document.body, { childList: true, subtree: true });
  });
})();
