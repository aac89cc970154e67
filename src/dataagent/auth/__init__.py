"""Users, passwords, tokens, roles -> permissions, and the FastAPI dependencies that check them."""
