"""MXNet 1.9.1's mx.attribute: AttrScope, the attributes every symbol created inside a
`with mx.AttrScope(key='value'):` block gets (ctx_group, lr_mult, __layout__, ...). Symbol
creation (symbol.var and every operator) merges the current scope's attributes under the ones
the call gives itself; nested scopes add to the outer one's."""
import threading
import warnings

__all__ = ["AttrScope"]


class _ClassProperty:
    """A property of the class (AttrScope.current, MXNet's deprecated spelling)."""

    def __init__(self, fget, fset=None):
        self.fget, self.fset = fget, fset

    def __get__(self, obj, owner):
        return self.fget(owner)


class _ScopeMeta(type):
    """Lets `AttrScope.current = scope` reach the setter, as MXNet's metaclass does."""

    def __setattr__(cls, key, value):
        prop = cls.__dict__.get(key)
        if isinstance(prop, _ClassProperty) and prop.fset is not None:
            prop.fset(cls, value)
        else:
            super().__setattr__(key, value)


def _warn_current():
    warnings.warn("AttrScope.current has been deprecated. It is advised to use the `with` statement with "
                  "AttrScope.", DeprecationWarning, stacklevel=3)


class AttrScope(metaclass=_ScopeMeta):
    """Attribute manager for scoping: `with AttrScope(ctx_group='dev1'):` attaches
    ctx_group='dev1' to every symbol created inside. Values must be strings."""

    # one current scope per thread, as MXNet's
    _current = threading.local()

    def __init__(self, **kwargs):
        self._old_scope = None
        for value in kwargs.values():
            if not isinstance(value, str):
                raise ValueError("Attributes need to be string")
        self._attr = kwargs

    def get(self, attr):
        """The attributes for a symbol created in this scope: the scope's, updated with `attr`
        (the ones the call gives win)."""
        if self._attr:
            ret = self._attr.copy()
            if attr:
                ret.update(attr)
            return ret
        return attr if attr else {}

    def __enter__(self):
        self._old_scope = AttrScope._value()
        attr = self._old_scope._attr.copy()
        attr.update(self._attr)
        self._attr = attr
        AttrScope._current.value = self
        return self

    def __exit__(self, ptype, value, trace):
        assert self._old_scope
        AttrScope._current.value = self._old_scope

    @staticmethod
    def _value():
        """This thread's current scope (an empty one in a fresh thread)."""
        if not hasattr(AttrScope._current, "value"):
            AttrScope._current.value = AttrScope()
        return AttrScope._current.value

    def _get_current(cls):
        _warn_current()
        return cls._value()

    def _set_current(cls, val):
        _warn_current()
        cls._current.value = val

    current = _ClassProperty(_get_current, _set_current)
    del _get_current, _set_current


def current_attrs(attr=None):
    """The attributes a symbol created now gets: the current scope's, updated with `attr`."""
    return AttrScope._value().get(attr)
