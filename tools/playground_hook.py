"""The documentation site's hook for the playground page (mkdocs.yml: hooks): for now it
does nothing after the build."""


def on_post_build(config):
    """Called by MkDocs once the site is built; nothing to add yet."""
