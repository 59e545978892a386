"""Dataset card templates (``templates/``) and the cards of published noisecraft sets."""
