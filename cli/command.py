"""What every ``arena`` command is made of and that costs nothing to import: the class of its
click command (Typer's, with plainer help), the one-line error exit, and the default results
folder. It imports nothing but Typer, so ``arena --help`` and ``arena rank`` load it without
the sandbox, the server or the site.

Typer (0.29) coerces every value through a pydantic ``TypeAdapter`` built on first use, and
importing pydantic for it costs about 0.05 s, a quarter of ``arena rank``'s start. Every
command's parameters (and the root's) therefore coerce the plain cases as Typer's adapters
do, without them: choices of an enum, ``Path`` and ``str`` values, and no value at all. Any
other type, or a value one of those refuses, goes to Typer's own coercion, so what is
accepted and every error message stay Typer's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer
from typer._click.exceptions import BadParameter
from typer._coercion import RuntimeParam, build_runtime_param
from typer._param_types import coerce_cli_choice, coerce_cli_path, lenient_issubclass
from typer.core import TyperCommand, _TyperParameter

if TYPE_CHECKING:  # Typer's own copy of click (the types of its commands)
    from typer._click import Context, HelpFormatter, Parameter

__all__ = ["RESULTS_DIR", "Command", "fail", "plain_coercion"]

#: Where ``arena tournament`` writes when no ``--out`` is given (``arena rank``'s default).
RESULTS_DIR = Path("arena-results")


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error to stderr and exit with ``code`` (never a traceback)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


@dataclass(frozen=True)
class _PlainCoercion(RuntimeParam):
    """One parameter's coercion: the plain cases here, the rest by Typer's own (built, with
    pydantic, only when needed)."""

    def _coerce_value(self, value: Any, param: _TyperParameter, ctx: Context) -> Any:
        info, annotation = self.parameter_info, self.annotation
        plain = info.parser is None and not param.type_descriptor.is_file
        try:
            if plain and lenient_issubclass(annotation, Enum):
                return coerce_cli_choice(value, choices=tuple(annotation),
                                         case_sensitive=info.case_sensitive, ctx=ctx)
            if plain and annotation is str and type(value) is str:
                return value
            if plain and param.type_descriptor.is_path and (
                    info.path_type or annotation) is Path:
                # pydantic's Path from a string is Path(string), '' included
                path = Path(value) if type(value) is str else value
                if isinstance(path, Path):
                    return coerce_cli_path(path, info, path_type=Path, param=param, ctx=ctx)
        except (ValueError, BadParameter):
            pass  # Typer's coercion says why, in its words
        typer_own = build_runtime_param(param.type_descriptor)
        param._runtime_param = typer_own
        return typer_own._coerce_value(value, param=param, ctx=ctx)


def plain_coercion(params: Iterable[Parameter]) -> None:
    """Give Typer's parameters among ``params`` the coercion that needs no pydantic for plain
    values (:class:`_PlainCoercion`)."""
    for param in params:
        if isinstance(param, _TyperParameter) and param._runtime_param is None:
            param._runtime_param = _PlainCoercion(
                parameter_info=param.type_descriptor.parameter_info,
                annotation=param.type_descriptor.annotation)


class Command(TyperCommand):
    """Every ``arena`` command: its help names each argument by its metavar alone (Typer adds
    the argument's type, as in ``BOT <list[str]>``); options show their metavars. Its values
    are coerced without pydantic where they are plain (:func:`plain_coercion`)."""

    def get_params(self, ctx: Context) -> list[Parameter]:
        """Its parameters, ``--help`` (made when first asked for) included, each coerced
        without pydantic where its values are plain."""
        params = super().get_params(ctx)
        plain_coercion(params)
        return params

    def format_options(self, ctx: Context, formatter: HelpFormatter) -> None:
        arguments, options = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                arguments.append((param.metavar or record[0], record[1]))
            else:
                options.append(record)
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)
