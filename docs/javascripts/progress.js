// What a reader has read, kept in their own browser (localStorage; no server, no cookie).
// Stored: {read: {page: course}, lastRead: page}. A page's key is its address under the site root
// (sitebuild/coursenav.page_url, the chrome's data-progress-page), without #fragment or ?query, so it does
// not depend on where the site is served or which heading the reader came in at.
// On a course page: the "Mark as read" buttons mark it read or unread (a page marked read becomes lastRead).
// Everywhere: tick the pages marked read among the syllabus entries, that is the pages of the navigation and
// of the home page's syllabus, never the page's own table of contents (links to #headings); count them; and
// point the home page's "Continue" at the first unread page after the last one marked read, in syllabus
// order (from the start when none is unread after it). Without storage nothing is kept.
(function () {
  "use strict";
  var KEY = "evidencedesk-progress";

  function load() {
    try {
      var data = JSON.parse(window.localStorage.getItem(KEY) || "{}");
      return {read: data.read || {}, lastRead: data.lastRead || null};
    } catch (error) {
      return {read: {}, lastRead: null};
    }
  }

  function save(state) {
    try {
      window.localStorage.setItem(KEY, JSON.stringify(state));
    } catch (error) { /* storage refused: the marks last as long as the page */ }
  }

  var config = JSON.parse(document.getElementById("__config").textContent);
  var root = new URL(config.base.replace(/\/?$/, "/"), window.location.href).href;

  function keyOf(href) {
    var url = new URL(href, window.location.href);
    url.hash = "";
    url.search = "";
    return url.href.indexOf(root) === 0 ? url.href.slice(root.length).replace(/index\.html$/, "") : null;
  }

  function countIn(state, course) {
    var count = 0;
    for (var page in state.read) {
      if (state.read[page] === course) count += 1;
    }
    return count;
  }

  function show(state) {
    document.querySelectorAll("a.md-nav__link, a.md-tabs__link").forEach(function (link) {
      var href = link.getAttribute("href") || "";
      var heading = href.indexOf("#") !== -1 || link.closest("[data-md-component='toc'], .md-nav--secondary");
      var key = heading ? null : keyOf(href);
      link.classList.toggle("is-read", key !== null && key !== "" && key in state.read);
    });
    document.querySelectorAll("[data-progress-entry]").forEach(function (entry) {
      entry.classList.toggle("is-read", entry.dataset.progressEntry in state.read);
    });
    var chrome = document.querySelector("[data-progress-page]");
    if (chrome) {
      var read = chrome.dataset.progressPage in state.read;
      document.querySelectorAll("[data-progress-mark]").forEach(function (button) {
        button.setAttribute("aria-pressed", read ? "true" : "false");
        button.textContent = read ? "Marked as read ✓" : "Mark as read";
        button.title = read ? "Kept in this browser; click to mark it unread" : "Kept in this browser only";
      });
      var count = countIn(state, chrome.dataset.progressCourse);
      var counter = chrome.querySelector("[data-chrome='read-count']");
      counter.hidden = count === 0;
      counter.textContent = "· " + count + " of " + chrome.dataset.progressCount + " marked read";
    }
    document.querySelectorAll("[data-syllabus-course]").forEach(function (course) {
      var count = countIn(state, course.dataset.syllabusCourse);
      var counter = course.querySelector("[data-progress-course-count]");
      counter.hidden = count === 0;
      counter.textContent = " · " + count + " marked read";
    });
    var resume = document.querySelector("[data-progress-continue]");
    var next = resume && nextUnread(state);
    if (next) {
      var link = resume.querySelector("[data-progress-continue-link]");
      link.href = root + next.dataset.progressEntry;
      link.textContent = next.querySelector("a").textContent;
      resume.querySelector("[data-progress-continue-where]").textContent =
        "(" + next.dataset.progressCourse + ", page " + next.dataset.progressNumber + " of " +
        next.dataset.progressCount + ")";
      resume.querySelector("[data-progress-continue-title]").textContent = "Continue where you left off";
      resume.dataset.progressContinue = "next";
    } else if (resume && Object.keys(state.read).length) {  // read pages, none unread
      resume.querySelector("[data-progress-continue-title]").textContent = "Every page is marked read";
      resume.dataset.progressContinue = "done";
    }
  }

  // The syllabus entry to continue at: the first unread one after the last page marked read (wrapping round
  // to the start), or null when nothing is marked read yet (the start stays) or every page is read.
  function nextUnread(state) {
    var entries = Array.prototype.slice.call(document.querySelectorAll("[data-progress-entry]"));
    var at = -1;
    entries.forEach(function (entry, index) {
      if (entry.dataset.progressEntry === state.lastRead) at = index;
    });
    if (at === -1 && !Object.keys(state.read).length) return null;
    var order = at === -1 ? entries : entries.slice(at + 1).concat(entries.slice(0, at));
    for (var i = 0; i < order.length; i += 1) {
      if (!(order[i].dataset.progressEntry in state.read)) return order[i];
    }
    return null;
  }

  var state = load();
  var page = document.querySelector("[data-progress-page]");
  if (page) {
    document.querySelectorAll("[data-progress-mark]").forEach(function (button) {
      button.addEventListener("click", function () {
        var current = load();
        var key = page.dataset.progressPage;
        if (key in current.read) {
          delete current.read[key];
        } else {
          current.read[key] = page.dataset.progressCourse;
          current.lastRead = key;
        }
        save(current);
        state = current;
        show(state);
      });
    });
  }
  show(state);
})();
