"""Clear errors for the parts of CARLA's API lockstep does not have.

`NotInLockstepError` is an AttributeError (so `hasattr` and `getattr(x, name, default)` behave
as for any missing attribute) whose text names the CARLA name and says lockstep does not
implement it. `MissingMember` is the class attribute bound to each such method or
property of a class lockstep has: reading it from an instance raises that error at the
point of use, rather than an AttributeError from deep inside a script's helpers.
"""

from __future__ import annotations

from typing import Any

from world.errors import LockstepError

__all__ = [
    "MissingExtraError",
    "MissingMember",
    "NotInLockstepError",
    "bind_missing_members",
    "is_missing",
    "missing_class",
    "rss_namespace",
]


class NotInLockstepError(LockstepError, AttributeError):
    """A name of CARLA's API that lockstep does not implement."""

    def __init__(self, qualified: str) -> None:
        super().__init__(f"carla.{qualified} is not implemented by lockstep")
        self.qualified = qualified


class MissingExtraError(LockstepError, AttributeError):
    """A name of CARLA's API that needs one of lockstep's optional extras, not installed."""


def rss_namespace() -> Any:
    """`carla.ad`: the RSS libraries' namespace, or MissingExtraError naming the extra."""
    from world.sensors.rss import bindings

    if not bindings.available():
        raise MissingExtraError(f"carla.ad needs Intel's RSS libraries: {bindings.EXTRA_HINT}")
    return bindings.ad()


class MissingMember:
    """A descriptor for `carla.<Class>.<name>`: raises NotInLockstepError when read."""

    __slots__ = ("qualified",)

    def __init__(self, qualified: str) -> None:
        self.qualified = qualified

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        raise NotInLockstepError(self.qualified)


class _MissingClassType(type):
    """The type of a stand-in for a CARLA class lockstep lacks: reading any of its
    attributes raises NotInLockstepError (`carla.ColorConverter.Raw`)."""

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise NotInLockstepError(f"{cls.__name__}.{name}")

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        raise NotInLockstepError(cls.__name__)


_STAND_INS: dict[str, type] = {}


def missing_class(name: str) -> type:
    """The stand-in class for CARLA's `name` (one per name): no object is ever one of it,
    so `isinstance(data, carla.Image)` is False, and making one raises NotInLockstepError."""
    if name not in _STAND_INS:
        _STAND_INS[name] = _MissingClassType(name, (), {"__module__": "carla"})
    return _STAND_INS[name]


def is_missing(cls: type, name: str) -> bool:
    """Whether `cls.name` is absent or one of the MissingMember placeholders."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return isinstance(klass.__dict__[name], MissingMember)
    return not _instance_field(cls, name)


def _instance_field(cls: type, name: str) -> bool:
    """Fields set in __init__ (slots, dataclass fields) count as present."""
    for klass in cls.__mro__:
        if name in getattr(klass, "__slots__", ()) or name in getattr(
            klass, "__dataclass_fields__", {}
        ):
            return True
    return False


def bind_missing_members(classes: dict[str, type], api: dict[str, tuple[str, ...]]) -> None:
    """Gives each class of `classes` a MissingMember for every name of its CARLA class
    (`api`) it lacks; the classes' existing members are left alone."""
    for carla_name, cls in classes.items():
        for member in api.get(carla_name, ()):
            if is_missing(cls, member) and member not in cls.__dict__:
                setattr(cls, member, MissingMember(f"{carla_name}.{member}"))
