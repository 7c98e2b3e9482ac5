/* The translation memory's suggestions (quizzes/staff/translation_memory_admin.py):
   each list moves beside the translation input it is for, and “Use this” puts
   its text in that input. A choice's input is found through its inline form's
   hidden id, since the inline numbers its forms itself. */
(function () {
  "use strict";
  function inputFor(block) {
    var name = block.getAttribute("data-input");
    if (!name) {
      var id = document.querySelector(
        'input[type="hidden"][name$="-id"][value="' + block.getAttribute("data-choice") + '"]'
      );
      if (!id) {
        return null;
      }
      name = id.name.replace(/-id$/, "-") + block.getAttribute("data-column");
    }
    return document.querySelector('[name="' + name + '"]');
  }
  document.addEventListener("DOMContentLoaded", function () {
    var blocks = document.querySelectorAll(".tm-suggestions");
    Array.prototype.forEach.call(blocks, function (block) {
      var input = inputFor(block);
      if (input) {
        block.setAttribute("data-target", input.name);
        input.insertAdjacentElement("afterend", block);
      }
    });
    // Once every list sits beside its input, the page's own block is an empty row.
    var holder = document.querySelector(".translation-memory");
    if (holder && !holder.querySelector(".tm-suggestions")) {
      var row = holder.closest(".form-row");
      if (row) {
        row.hidden = true;
      }
    }
  });
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest(".tm-use") : null;
    if (!button) {
      return;
    }
    var block = button.closest(".tm-suggestions");
    var input = block ? document.querySelector('[name="' + block.getAttribute("data-target") + '"]') : null;
    if (!input) {
      return;
    }
    input.value = button.getAttribute("data-value");
    input.dispatchEvent(new Event("input", { bubbles: true }));
    input.dispatchEvent(new Event("change", { bubbles: true }));
    input.focus();
  });
})();
