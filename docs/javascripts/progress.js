// What a reader has read, kept in their own browser (localStorage; no server, no cookie).
// On a course page (the chrome's data-progress-page): remember it as the last page visited, and let the
// "Mark as read" buttons mark it read or unread. Everywhere: tick the pages marked read in the navigation
// and in the home page's syllabus, count them, and fill the home page's "Continue where you left off".
// The pages' keys are their addresses under the site root (sitebuild/coursenav.page_url), so they do not
// depend on where the site is served. Without storage (a private window that refuses it) nothing is kept.
(function () {
  "use strict";
  var KEY = "evidencedesk-progress";

  function load() {
    try {
      var data = JSON.parse(window.localStorage.getItem(KEY) || "{}");
      return {read: data.read || {}, last: data.last || null};
    } catch (error) {
      return {read: {}, last: null};
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
      var key = keyOf(link.getAttribute("href"));
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
    if (resume && state.last) {
      var link = resume.querySelector("[data-progress-continue-link]");
      link.href = root + state.last.url;
      link.textContent = state.last.title;
      resume.querySelector("[data-progress-continue-where]").textContent =
        "(" + state.last.course + ", page " + state.last.number + " of " + state.last.count + ")";
      resume.querySelector("[data-progress-continue-title]").textContent = "Continue where you left off";
      resume.dataset.progressContinue = "last";
    }
  }

  var state = load();
  var page = document.querySelector("[data-progress-page]");
  if (page) {
    var title = document.querySelector("article h1");
    state.last = {
      url: page.dataset.progressPage,
      title: title ? title.textContent.replace(/¶\s*$/, "").trim() : document.title,
      course: page.dataset.progressCourse,
      number: Number(page.dataset.progressNumber),
      count: Number(page.dataset.progressCount)
    };
    save(state);
    document.querySelectorAll("[data-progress-mark]").forEach(function (button) {
      button.addEventListener("click", function () {
        var current = load();
        current.last = state.last;
        if (page.dataset.progressPage in current.read) {
          delete current.read[page.dataset.progressPage];
        } else {
          current.read[page.dataset.progressPage] = page.dataset.progressCourse;
        }
        save(current);
        state = current;
        show(state);
      });
    });
  }
  show(state);
})();
