"""`python -m ctxlint`."""
from ctxlint.cli import main

if __name__ == "__main__":
    main()
