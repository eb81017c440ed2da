"""Synthetic inputs with prescribed behaviour, shared by the chapter tests (imported as
``chapter_fakes.<chapter>``; ``tests/chapters/conftest.py`` puts this folder's parent on the path)."""
