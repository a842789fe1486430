"""`python -m ctxlint`."""
from ctxlint.cli_check import main

if __name__ == "__main__":
    main()
