/* The time zone page, made easier where scripts run (it works without them: a select by region).
   - Nothing chosen yet: the phone's own zone (Intl) is selected and said; saving confirms it.
   - A search box narrows the list to the places whose name or zone matches. */
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var select = document.getElementById("time-zone");
    if (!select) {
      return;
    }
    var proposal = document.querySelector(".device-zone[data-propose]");
    var device = "";
    try {
      device = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
    } catch (error) {
      device = "";
    }
    if (proposal && device) {
      var option = select.querySelector('option[value="' + device.replace(/["\\]/g, "") + '"]');
      if (option) {
        option.selected = true;
        proposal.textContent = proposal.getAttribute("data-propose").replace("%(zone)s", option.textContent);
        proposal.hidden = false;
      }
    }
    var search = document.getElementById("zone-search");
    search.parentElement.hidden = false;
    search.addEventListener("input", function () {
      var words = search.value.toLowerCase().trim();
      var first = null;
      select.querySelectorAll("option").forEach(function (option) {
        var shown = !words || option.getAttribute("data-search").indexOf(words) !== -1;
        option.hidden = !shown;
        option.disabled = !shown;
        if (shown && !first) {
          first = option;
        }
      });
      select.querySelectorAll("optgroup").forEach(function (group) {
        group.hidden = !group.querySelector("option:not([hidden])");
      });
      if (first && select.selectedOptions[0] && select.selectedOptions[0].hidden) {
        first.selected = true;
      }
    });
  });
})();
