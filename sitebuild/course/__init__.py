"""The course: the courses and chapters the nav holds, and what each course page shows around its prose.

- coursenav.py: the course pages read from the nav (course, chapter, place).
- chrome.py: "Page k of N", reading time, minutes left; syllabus.py: each course's syllabus.
- nextlink.py: each page's "Next" against the nav; crosslinks.py: a mention of another page is a link to it.

Never imports MkDocs (the adapter hands it MkDocs' objects), run/ or verify/.
"""
