"""`python -m dataagent` runs the command line."""

from dataagent.cli import main

main()
