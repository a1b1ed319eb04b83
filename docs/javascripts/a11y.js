// What the theme leaves out for keyboard and screen-reader users, added once the page has loaded:
// - the search dialog gets a name ("Search"), and a task list's checkboxes their item's text;
// - every code box and table that scrolls sideways can take keyboard focus (tabindex 0, as WCAG's "scrollable region
//   focusable" asks) and is named for what it is, so a keyboard user can scroll it with the arrow keys;
// - "Skip to content" lands on the course chrome above the page's title (the course, chapter, "Mark as
//   read"), not on the title below it.
// It changes no content and stores nothing. The closed drawer's focus is extra.css's (visibility).
(function () {
  "use strict";

  function nameSearch() {
    var dialog = document.querySelector(".md-search[role='dialog']");
    if (dialog && !dialog.hasAttribute("aria-label")) dialog.setAttribute("aria-label", "Search");
  }

  function focusableCode() {
    document.querySelectorAll("article pre > code").forEach(function (code) {
      var scrolls = code.scrollWidth > code.clientWidth + 1 || code.scrollHeight > code.clientHeight + 1;
      if (scrolls) {
        code.setAttribute("tabindex", "0");
        if (!code.hasAttribute("aria-label")) {
          var box = code.closest(".highlight");
          var title = box && box.querySelector(".filename");
          code.setAttribute("role", "region");
          code.setAttribute("aria-label", (title ? title.textContent.trim() + ": " : "") + "code, scrolls sideways");
        }
      } else if (code.getAttribute("role") === "region") {
        code.removeAttribute("tabindex");
        code.removeAttribute("role");
        code.removeAttribute("aria-label");
      }
    });
    // A table too wide for the column scrolls in Material's wrapper: the same keyboard access.
    document.querySelectorAll("article .md-typeset__scrollwrap").forEach(function (wrap) {
      if (wrap.scrollWidth > wrap.clientWidth + 1) {
        wrap.setAttribute("tabindex", "0");
        wrap.setAttribute("role", "region");
        wrap.setAttribute("aria-label", "table, scrolls sideways");
      } else if (wrap.getAttribute("role") === "region") {
        wrap.removeAttribute("tabindex");
        wrap.removeAttribute("role");
        wrap.removeAttribute("aria-label");
      }
    });
  }

  // A task list's checkboxes (pymdownx.tasklist: a read-only tick in an empty label) get their item's text
  // as their name.
  function nameTicks() {
    document.querySelectorAll("article .task-list-item > .task-list-control > input").forEach(function (box) {
      var item = box.closest(".task-list-item").cloneNode(true);
      item.querySelectorAll("ul, ol").forEach(function (nested) { nested.remove(); });
      if (!box.hasAttribute("aria-label")) box.setAttribute("aria-label", item.textContent.trim());
    });
  }

  function skipToChrome() {
    var chrome = document.querySelector("[data-chrome='chrome']");
    var skip = document.querySelector("a.md-skip");
    if (!chrome || !skip) return;
    skip.setAttribute("href", "#" + chrome.id);
  }

  nameSearch();
  nameTicks();
  skipToChrome();
  focusableCode();
  // What scrolls changes after this first look: Material wraps tables once its own script has run, a closed
  // box's code and tables have no width until the reader opens it, and the window can be resized.
  window.addEventListener("resize", focusableCode);
  document.addEventListener("toggle", focusableCode, true);  // a box opened or closed (toggle does not bubble)
  var article = document.querySelector("article");
  if (article && window.MutationObserver) {
    new MutationObserver(focusableCode).observe(article, { childList: true, subtree: true });
  }
})();
