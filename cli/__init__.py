"""The ``arena`` command line: one module per command, each a thin layer over the packages
below it (``engine``, ``arena``, ``tournaments``, ``publish``), which never import it.

:mod:`cli.main` builds the Typer app and is the console script's entry point;
:mod:`cli.common` holds the options and checks the commands share.
"""
