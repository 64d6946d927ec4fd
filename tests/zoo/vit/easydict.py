"""Stand-in for the `easydict` package that the zoo's src/vit.py imports (absent from both test environments):
a dict whose keys are also attributes, all that vit.py's `vit_cfg` uses."""


class EasyDict(dict):
    """A dict read and written through attributes."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError as e:
            raise AttributeError(name) from e

    def __setattr__(self, name, value):
        self[name] = value
