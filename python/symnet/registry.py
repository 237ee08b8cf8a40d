"""Registries of named subclasses, as MXNet 1.9.1's mxnet.registry: for a base class,
get_register_func gives a decorator that files a subclass under its lower-cased name,
get_alias_func one that files it under more names, and get_create_func a factory that makes an
instance from a name, a JSON string or a dict.

There is one registry per base class. symnet's optimizers use the one of Optimizer (it is
Optimizer.opt_registry), so a class registered through either door is found through both."""
import json
import warnings

from .base import string_types

_REGISTRY = {}


def _registry_of(base_class):
    """The live {name: class} dict of base_class (made empty the first time)."""
    return _REGISTRY.setdefault(base_class, {})


def get_registry(base_class):
    """A copy of base_class's {name: class} registry."""
    return _registry_of(base_class).copy()


def get_register_func(base_class, nickname):
    """A function register(klass, name=None) that files subclass klass of base_class under
    name (default: the class name), lower-cased, and returns klass; usable as a decorator.
    nickname names the kind of object in messages ('optimizer', 'initializer')."""
    registry = _registry_of(base_class)

    def register(klass, name=None):
        assert issubclass(klass, base_class), \
            "Can only register subclass of %s" % base_class.__name__
        name = (klass.__name__ if name is None else name).lower()
        old = registry.get(name)
        if old is not None and old is not klass:
            warnings.warn("New %s %s.%s registered with name %s is overriding existing %s %s.%s"
                          % (nickname, klass.__module__, klass.__name__, name, nickname,
                             old.__module__, old.__name__), UserWarning, stacklevel=2)
        registry[name] = klass
        return klass

    register.__doc__ = "Register %s to the %s factory" % (nickname, nickname)
    return register


def get_alias_func(base_class, nickname):
    """A decorator factory alias(*names): @alias('a', 'b') files the class under each name."""
    register = get_register_func(base_class, nickname)

    def alias(*aliases):
        def reg(klass):
            for name in aliases:
                register(klass, name)
            return klass
        return reg
    return alias


def get_create_func(base_class, nickname):
    """A factory create(spec, *args, **kwargs) for base_class. spec is a registered name (any
    case), an instance (returned as it is; no further arguments then), a dict of keyword
    arguments holding the name under `nickname`, or the JSON text of '["name", {kwargs}]' or
    '{"nickname": "name", ...}'. The name may also be given as the keyword `nickname`."""
    registry = _registry_of(base_class)

    def create(*args, **kwargs):
        if args:
            name, args = args[0], args[1:]
        else:
            name = kwargs.pop(nickname)
        if isinstance(name, base_class):
            assert not args and not kwargs, \
                "%s is already an instance. Additional arguments are invalid" % nickname
            return name
        if isinstance(name, dict):
            return create(**name)
        assert isinstance(name, string_types), "%s must be of string type" % nickname
        if name.startswith("["):
            assert not args and not kwargs
            name, kwargs = json.loads(name)
            return create(name, **kwargs)
        if name.startswith("{"):
            assert not args and not kwargs
            return create(**json.loads(name))
        name = name.lower()
        assert name in registry, \
            "%s is not registered. Please register with %s.register first" % (name, nickname)
        return registry[name](*args, **kwargs)

    create.__doc__ = ("Create a %s instance from config: a registered name, an instance of %s "
                      "(returned as it is), a dict or JSON text; keyword arguments go to the "
                      "constructor." % (nickname, base_class.__name__))
    return create
