"""Parts of the book build (``book/build.py``): when to execute a chapter again, how an executed
chapter is prepared for reading, and the generated reproducibility page."""
