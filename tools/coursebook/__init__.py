"""The parts of the course site's build (tools/build_book.py, `make book`), one concern each:

- stage.py: the notebooks adapted for a static page (panels, solutions, removed cells,
  alt text, anchors) for the student or the instructor edition;
- alt.py: what each figure shows, for its alt text;
- pages.py: the Markdown pages (syllabus, instructor guide, slides index, the user guide
  and course pages under docs/) and the table of contents;
- slides.py: reveal.js decks of notebooks 01-05 (nbconvert);
- npm.py: MathJax and reveal.js from the npm registry, cached and copied into the site.

Our addition: the paper ships no course. Not here: the page checks (tests/browser/).
"""
