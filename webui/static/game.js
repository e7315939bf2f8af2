// A past game's page: the arrow keys (and Home/End) step through the moves like the step buttons.
(function () {
  "use strict";
  const links = {};
  for (const link of document.querySelectorAll(".steps a[data-key]")) links[link.dataset.key] = link;
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA")) return;
    const link = links[event.key];
    if (link && link.getAttribute("aria-disabled") !== "true") {
      event.preventDefault();
      window.location.assign(link.href);
    }
  });
})();
