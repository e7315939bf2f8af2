"""The web layer: the Flask app factory, one blueprint per page group, auth, the view model, templates."""
