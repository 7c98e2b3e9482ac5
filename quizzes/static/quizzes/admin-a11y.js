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
  /* The language tabs by their languages' names in the editor's language (modeltranslation
     names them from the column suffix: Indonesian's "ind" showed as "Ind"). */
  function nameTheTabs() {
    var strings = document.getElementById("quizzes-admin-strings");
    var tabs = document.querySelectorAll(".ui-tabs-nav li[aria-controls]");
    if (!strings || !tabs.length) {
      return false;
    }
    tabs.forEach(function (tab) {
      var suffix = tab.getAttribute("aria-controls").split("_").pop();
      var name = strings.dataset["tab" + suffix.charAt(0).toUpperCase() + suffix.slice(1)];
      var link = tab.querySelector("a");
      if (name && link && link.textContent !== name) {
        link.textContent = name;
      }
    });
    return true;
  }
  document.addEventListener("DOMContentLoaded", function () {
    if (!document.getElementById("quizzes-admin-strings")) {
      return;
    }
    var named = nameTheSwitch();
    nameTheTabs();
    // Kept watching: the tabs are made after this, and again for each choice row added.
    var observer = new MutationObserver(function () {
      named = named || nameTheSwitch();
      nameTheTabs();
    });
    observer.observe(document.body, { childList: true, subtree: true });
  });
})();
