"""Options from config dataclasses, and configs from options: the one way every command
turns its arguments into a config. A config checks its own fields, so a bad value gets
the same message through the command line as through the API.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import textwrap
from collections.abc import Callable
from typing import Any, Protocol


class HelpFormatter(argparse.RawTextHelpFormatter):
    """``--help`` with every option's default, and the texts' own line breaks.

    An option without a meaningful default (None, off, an empty list) says in its own
    text what happens when it is left out."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if (
            not action.option_strings
            or "(default" in text
            or default is argparse.SUPPRESS
            or default is None
            or default is False
            or default == []
        ):
            return text
        return f"{text} (default: %(default)s)"


class SubCommands(Protocol):
    """What ``ArgumentParser.add_subparsers`` returns, as the command modules use it."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser: ...


def command(sub: SubCommands, name: str, run: Callable, help: str) -> argparse.ArgumentParser:
    """A sub-command whose parser shows defaults and which runs ``run(args)``."""
    parser = sub.add_parser(name, help=help, description=help, formatter_class=HelpFormatter)
    parser.set_defaults(run=run)
    return parser


def field_docs(config_cls: type) -> dict[str, str]:
    """Each field's docstring (the string right below it, as CleanRL's configs write
    them): the --help text, written once, beside the field it describes."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(config_cls)))
    body = tree.body[0].body
    docs = {}
    for field_node, doc in zip(body, body[1:], strict=False):
        if (
            isinstance(field_node, ast.AnnAssign)
            and isinstance(field_node.target, ast.Name)
            and isinstance(doc, ast.Expr)
            and isinstance(doc.value, ast.Constant)
            and isinstance(doc.value.value, str)
        ):
            docs[field_node.target.id] = inspect.cleandoc(doc.value.value)
    return docs


def parse_bool(text: str) -> bool:
    """A true/false option's value; anything else is refused, with the accepted words."""
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true/false (or 1/0, yes/no, on/off), got {text!r}")


def nested_config(f: dataclasses.Field) -> type | None:
    """The config class of a field that holds a config of its own (``net``), else None."""
    factory = f.default_factory
    if factory is not dataclasses.MISSING and dataclasses.is_dataclass(factory):
        return factory  # type: ignore[return-value]
    return None


def add_fields(
    parser: argparse.ArgumentParser,
    config_cls: type,
    skip: tuple[str, ...] = (),
    choices: dict[str, tuple] | None = None,
) -> None:
    """One --option per field of a config dataclass and of the configs it holds (``net``):
    the field's docstring is the option's help, its default the option's default."""
    helps = field_docs(config_cls)
    config = config_cls()
    for f in dataclasses.fields(config_cls):
        if f.name in skip:
            continue
        inner = nested_config(f)
        if inner is not None:
            add_fields(parser, inner, skip, choices)
            continue
        default = getattr(config, f.name)
        kind = parse_bool if isinstance(default, bool) else type(default)
        parser.add_argument(
            "--" + f.name.replace("_", "-"), type=kind, default=default,
            help=helps.get(f.name, ""), choices=(choices or {}).get(f.name),
        )  # fmt: skip


def config_of(config_cls: type, args: argparse.Namespace, skip: tuple[str, ...] = ()) -> Any:
    """The config ``config_cls`` (and the configs it holds) from the options ``add_fields``
    made; a value the config refuses exits with the config's own message."""
    values = {}
    for f in dataclasses.fields(config_cls):
        if f.name in skip:
            continue
        inner = nested_config(f)
        values[f.name] = getattr(args, f.name) if inner is None else config_of(inner, args, skip)
    try:
        return config_cls(**values)
    except ValueError as err:
        raise SystemExit(str(err)) from None
