"""The notebooks' parameter profiles, ``notebooks/profiles/<notebook stem>.yaml``, read strictly.

One file per notebook, top-level keys ``smoke``, ``paper``, ...; each profile maps the notebook's parameter names
to values that override its ``parameters`` cell (``default`` is that cell itself). The pipeline
(:mod:`lib.site.pipeline`) runs a notebook under a profile; a chapter reads one while it runs (:func:`profile_values`),
to say what its ``paper`` profile runs (chapter 07's prose) and where a parameter's value came from
(:meth:`lib.book.spec.Config.sources`). A file that cannot be read, is not YAML, gives a key twice or has the wrong
shape is refused with one line naming it (:class:`ProfileError`).
"""
from __future__ import annotations

from pathlib import Path

import yaml

from lib.book.paths import ROOT

__all__ = ["PROFILES", "ProfileError", "DuplicateKeyError", "UniqueKeyLoader", "load_yaml", "load_profiles",
           "profile_values"]

#: the book's named profiles (a chapter without a profile file runs its parameters cell's values under each)
PROFILES = ("smoke", "default", "paper")


class ProfileError(ValueError):
    """A profile file cannot be used: unreadable, not UTF-8 or YAML, a key given twice, or the wrong shape."""


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A YAML mapping gives one key twice (PyYAML would silently keep the last value).

    Attributes:
        key: the repeated key.
        lines: the 1-based lines of its first and second appearance.
    """

    def __init__(self, key, lines: tuple[int, int]):
        self.key, self.lines = key, lines
        where = f"lines {lines[0]} and {lines[1]}" if lines[0] != lines[1] else f"both on line {lines[0]}"
        super().__init__(problem=f"key {key!r} is given twice ({where}); YAML would silently keep the last "
                                 "value, so remove one")

    def __str__(self) -> str:
        return self.problem


class UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing a mapping that gives a key twice (:class:`DuplicateKeyError`).

    A merge key (``<<: *base``) may still be overridden by a key written beside it, as YAML allows.
    """

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=deep)
                line = key_node.start_mark.line + 1
                try:
                    if key in seen:
                        raise DuplicateKeyError(key, (seen[key], line))
                    seen[key] = line
                except TypeError:  # an unhashable key: the base class refuses it
                    continue
        return super().construct_mapping(node, deep=deep)


def load_yaml(text: str):
    """Read YAML text as :func:`yaml.safe_load` does, but refuse a mapping that repeats a key.

    Every profile file and every ``-p`` value is read with it.

    Args:
        text: the YAML text.

    Returns:
        The Python value.

    Raises:
        DuplicateKeyError: a key appears twice in one mapping (its name and both lines in the message).
        yaml.YAMLError: the text is not valid YAML.
    """
    return yaml.load(text, Loader=UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass



def load_profiles(root: Path = ROOT, stems: list[str] | None = None) -> dict:
    """``{profile: {notebook stem: {parameter: value}}}`` from ``notebooks/profiles/*.yaml``.

    Args:
        root: the repository root.
        stems: read only the profiles of these notebooks (None: all), so that a damaged profile of
            another chapter does not stop a run.

    Returns:
        The profiles.

    Raises:
        ProfileError: one line naming the file: not UTF-8, not valid YAML, a key given twice in one
            mapping (two ``smoke:`` blocks, or ``seeds`` twice in one profile), a top level that is not a
            mapping of profile names, or a profile that is not a mapping of parameter names to values.
    """
    out: dict = {}
    for path in sorted((root / "notebooks" / "profiles").glob("*.yaml")):
        if stems is not None and path.stem not in stems:
            continue
        try:
            data = load_yaml(path.read_text(encoding="utf-8"))
        except DuplicateKeyError as exc:
            raise ProfileError(f"{path}: {exc}") from None
        except UnicodeDecodeError as exc:
            raise ProfileError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start}); save it as UTF-8") \
                from None
        except yaml.YAMLError as exc:
            raise ProfileError(f"{path} is not valid YAML: {' '.join(str(exc).split())}") from None
        except OSError as exc:
            raise ProfileError(f"{path} cannot be read: {exc.strerror or exc}") from None
        data = {} if data is None else data
        if not isinstance(data, dict):
            raise ProfileError(f"{path}: the top level must be a mapping of profile names (smoke:, paper:) to "
                                f"parameters, got a YAML {type(data).__name__}")
        for profile, values in data.items():
            if not isinstance(profile, str):
                raise ProfileError(f"{path}: profile names must be strings, got {profile!r}")
            if values is not None and not (isinstance(values, dict) and all(isinstance(k, str) for k in values)):
                raise ProfileError(f"{path}: profile {profile!r} must be a mapping of parameter names to values, "
                                    f"got a YAML {type(values).__name__} ({values!r})")
            out.setdefault(profile, {})[path.stem] = values or {}
    return out


def profile_values(chapter: str, profile: str, root: Path = ROOT) -> dict:
    """The values that profile ``profile`` sets for one notebook (``{}`` where it sets none).

    Args:
        chapter: the notebook stem (``"07_performance"``); only its profile file is read.
        profile: the profile name (``"paper"``).
        root: the repository root.

    Raises:
        ProfileError: that notebook's profile file cannot be used (see :func:`load_profiles`).
    """
    return dict((load_profiles(root, stems=[chapter]).get(profile) or {}).get(chapter) or {})
