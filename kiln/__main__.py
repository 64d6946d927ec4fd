"""`python -m kiln` and the `kiln` console script."""

from __future__ import annotations

import sys

from kiln.cli.main import main as cli_main


def main(argv: list[str] | None = None) -> int:
    """Run the `kiln` command line (see `kiln --help`).

    Returns:
        The exit status.
    """
    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
