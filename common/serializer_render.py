"""A DRF serializer's representation, fast: its fields bound once per class, not per object.

``Serializer(obj).data`` builds the serializer's fields for every object it renders
(``Serializer.fields`` deep-copies the declared fields, and a ModelSerializer reads its
model's fields again to make the rest): 0.3 to 0.8 ms of CPU for one of the API's
serializers, against some microseconds to read the values (``benchmarks/render.py``).
``renderer(SerializerClass)`` builds one instance of the class for the process, binds
its fields once, and compiles its readable fields, in their declared order, into one
plain function ``obj -> dict``, from what each field declares:

- its value: the attribute its one-attribute ``source`` names, the object itself for
  ``source="*"``. The field's own ``get_attribute`` is asked instead for a dotted source,
  for a field class that overrides it, or when reading the attribute fails (AttributeError,
  KeyError) or gives a function or method (which DRF calls), so that defaults,
  ``SkipField`` and errors are DRF's; ``ObjectDoesNotExist`` gives None, as in DRF. A
  Mapping is rendered by DRF itself (DRF reads its keys, not its attributes);
- a ``PrimaryKeyRelatedField`` of a ModelSerializer reads the model's column
  (``question_id``), as DRF's pk-only optimisation does;
- its representation: None stays None (DRF does not represent it); a value of the type a
  DRF field gives back unchanged stays as it is (an int for IntegerField, a str for
  CharField, a bool for BooleanField, a str for a ChoiceField of str choices: DRF's own
  classes only); anything else goes through the field's ``to_representation``; a
  SerializerMethodField calls its method on the kept instance; a nested serializer
  (``many=True`` or not) is compiled the same way;
- a field whose representation depends on the active language may say so with a method
  ``representation_in(language)``: a function ``value -> representation`` equal to its
  ``to_representation`` while that language is active. A serializer with such a field
  (itself or nested) is compiled once per language, and asks ``get_language()`` once per
  call instead of once per field and object (a microsecond and more each: Django's
  thread-local);
- a serializer (or list serializer) class that overrides ``to_representation`` is
  rendered by that method on the kept instance: its fields are not built anew either.

The function is a loop over the fields' reading and representation, decided once per
class: no code is generated. What it gives is a plain dict (a list for
``many``) equal to ``SerializerClass(obj).data``: tests/api/test_rendering.py checks it
for every API serializer. The OpenAPI schema is generated from the same serializer
classes: each representation is declared once.

Limits: the kept instance has no ``context`` (no request, no view): a serializer whose
fields read it is not for this (hyperlinked fields are refused). It is shared by every
thread: DRF's fields do not change when they represent a value, nor may a serializer's
``get_*`` methods keep anything on ``self``. Compiling is done under a lock, once per
class (and language, and set of given fields); nothing compiled changes afterwards.
"""

import threading
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from operator import attrgetter
from types import BuiltinFunctionType, FunctionType, MethodType

from django.core.exceptions import ImproperlyConfigured, ObjectDoesNotExist
from django.db.models.manager import BaseManager
from django.utils.translation import get_language
from rest_framework import fields as drf_fields
from rest_framework import relations, serializers
from rest_framework.fields import SkipField
from rest_framework.relations import PKOnlyObject
from rest_framework.response import Response

_LANGUAGES_MAX = 64  # compiled languages kept per class (settings.LANGUAGES, and any other activated)
_NOTHING_GIVEN: dict = {}


class Renderer:
    """Renders a serializer class's representation; get one from ``renderer()``."""

    def __init__(self, serializer_class: type[serializers.BaseSerializer]):
        self.serializer_class = serializer_class
        self.serializer = serializer_class()
        self._list_serializer = serializer_class(many=True)
        self._lock = threading.Lock()
        self._by_language: dict[str | None, _Compiled] = {}
        # The fields whose representation depends on the language (theirs or nested ones'), and
        # the one compiled form when there is none.
        self._by_language_fields = frozenset(
            name for name, field in self.serializer.fields.items() if _depends_on_language(field)
        )
        self._single = None if self._by_language_fields else self._compile(None)

    def __call__(self, obj, /, **given) -> dict:
        """``SerializerClass(obj).data``. ``given``: fields whose representation is at hand,
        not read from ``obj`` (``questions=`` from a cache, ``answers=[]`` for an attempt
        known to have none); they keep their declared place."""
        if not given:
            return (self._single or self._in(get_language())).render(obj)
        # Given every field that depends on the language: no need to ask for it.
        language = None if self._by_language_fields <= given.keys() else get_language()
        return (self._single or self._in(language)).render_given(obj, given)

    def many(self, objects: Iterable) -> list[dict]:
        """``SerializerClass(objects, many=True).data``."""
        return (self._single or self._in(get_language())).many(objects)

    def nested(self, name: str) -> Callable:
        """The representation of the nested serializer field ``name`` (a list for
        ``many=True``) from a value of it, in the active language: e.g. to render a value
        to cache, given to ``__call__`` afterwards."""
        nested = (self._single or self._in(get_language())).nested
        if name not in nested:
            raise KeyError(f"{self.serializer_class.__name__}.{name} is not a nested serializer")
        return nested[name]

    def _in(self, language: str | None) -> "_Compiled":
        compiled = self._by_language.get(language)
        return compiled if compiled is not None else self._compile(language)

    def _compile(self, language: str | None) -> "_Compiled":
        with self._lock:
            compiled = self._by_language.get(language)
            if compiled is None:
                compiled = _compile(self.serializer, language)
                compiled.many = _list_renderer(self._list_serializer, compiled.render)
                kept = self._by_language if len(self._by_language) < _LANGUAGES_MAX else {}
                self._by_language = {**kept, language: compiled}  # replaced, never changed: read without the lock
            return compiled


class _Compiled:
    """A serializer compiled for one language: ``render(obj)``, ``render_given(obj, given)``,
    ``many(objects)`` and its ``nested`` renderers by field name."""

    __slots__ = ("many", "nested", "render", "render_given")

    def __init__(self, nested, render, render_given):
        self.nested, self.render, self.render_given = nested, render, render_given
        self.many = None


_renderers: dict[type, Renderer] = {}
_renderers_lock = threading.Lock()


def renderer(serializer_class: type[serializers.BaseSerializer]) -> Renderer:
    """The process's renderer of ``serializer_class``, made at the first call (the app
    registry must be ready: call it in a view, not at import time)."""
    found = _renderers.get(serializer_class)
    if found is None:
        with _renderers_lock:
            found = _renderers.get(serializer_class)
            if found is None:
                found = _renderers[serializer_class] = Renderer(serializer_class)
    return found


class RenderedListMixin:
    """For a ListAPIView: its page rendered by ``renderer(serializer_class)``."""

    def list(self, request, *args, **kwargs):
        objects = self.filter_queryset(self.get_queryset())
        render = renderer(self.get_serializer_class()).many
        page = self.paginate_queryset(objects)
        if page is not None:
            return self.get_paginated_response(render(page))
        return Response(render(objects))


class RenderedRetrieveMixin:
    """For a RetrieveAPIView: its object rendered by ``renderer(serializer_class)``."""

    def retrieve(self, request, *args, **kwargs):
        return Response(renderer(self.get_serializer_class())(self.get_object()))


# Compiling.

# Values DRF calls when a source gives one (``rest_framework.fields.is_simple_callable``).
_CALLED = (FunctionType, MethodType, partial, BuiltinFunctionType)
_ITSELF = object()  # how a ``source="*"`` field is read: the object itself
_DRF = object()  # ... a field read by its own get_attribute only
_SLOW = object()  # a value to ask the field's get_attribute for
_SKIP = object()  # SkipField: no key
# DRF fields whose to_representation is this function of the value.
_CONVERTERS = {drf_fields.IntegerField.to_representation: int, drf_fields.CharField.to_representation: str}


def _depends_on_language(field) -> bool:
    """Whether ``field`` has ``representation_in``, or is a serializer with such a field (nested or not)."""
    if isinstance(field, serializers.ListSerializer):
        field = field.child
    if isinstance(field, serializers.Serializer):
        return any(_depends_on_language(child) for child in field.fields.values())
    return hasattr(field, "representation_in")


def _compile(serializer, language: str | None) -> "_Compiled":
    """A bound serializer's representation, compiled (``many`` left to the caller)."""
    if type(serializer).to_representation is not serializers.Serializer.to_representation:
        own = serializer.to_representation

        def given_refused(obj, given):
            raise TypeError(f"{type(serializer).__name__} has its own to_representation: no field can be given")

        return _Compiled({}, own, given_refused)

    fields, nested = [], {}
    for field in serializer._readable_fields:
        read, slow, convert, same, nested_render = _compile_field(serializer, field, language)
        fields.append((field.field_name, read, slow, convert, same))
        if nested_render is not None:
            nested[field.field_name] = nested_render
    with_given: dict[frozenset, Callable] = {}
    lock = threading.Lock()

    def render_given(obj, given):
        names = frozenset(given)
        function = with_given.get(names)
        if function is None:
            unknown = names - {name for name, *_rest in fields}  # checked once per set of names
            if unknown:
                raise TypeError(f"{type(serializer).__name__} has no field {', '.join(sorted(unknown))}")
            with lock:
                function = with_given.get(names)
                if function is None:
                    function = with_given[names] = _generate(serializer, fields, names)
        return function(obj, given)

    return _Compiled(nested, _generate(serializer, fields, frozenset()), render_given)


def _compile_field(serializer, field, language: str | None):
    """(read, slow, convert, same type, nested renderer or None) of one bound field: ``read``
    the attribute to read (or _ITSELF, _DRF), ``slow`` DRF's reading (None where DRF would
    not represent the value, _SKIP for SkipField), ``convert`` the representation of a value
    that is not None (None: itself), ``same`` the type of the values that are their own."""
    if isinstance(field, relations.HyperlinkedRelatedField) or isinstance(
        getattr(field, "child_relation", None), relations.HyperlinkedRelatedField
    ):
        raise ImproperlyConfigured(f"{type(serializer).__name__}.{field.field_name}: hyperlinked fields need a request")
    source = field.source_attrs
    reading = type(field).get_attribute
    if not source:
        read = _ITSELF
    elif len(source) == 1 and (
        reading is drf_fields.Field.get_attribute
        or (reading is relations.RelatedField.get_attribute and not field.use_pk_only_optimization())
    ):
        read = source[0]
    else:
        read = _DRF
    representation = type(field).to_representation

    def slow(obj):
        try:
            value = field.get_attribute(obj)
        except SkipField:
            return _SKIP
        return None if isinstance(value, PKOnlyObject) and value.pk is None else value

    if (
        isinstance(field, relations.PrimaryKeyRelatedField)
        and field.pk_field is None
        and reading is relations.RelatedField.get_attribute
        and representation is relations.PrimaryKeyRelatedField.to_representation
    ):
        model = getattr(getattr(serializer, "Meta", None), "model", None)
        column = _column(model, source[0]) if model is not None and len(source) == 1 else None

        def slow_pk(obj):  # DRF gives a PKOnlyObject or the related object: its pk
            try:
                value = field.get_attribute(obj)
            except SkipField:
                return _SKIP
            return None if value is None else value.pk

        return (column or _DRF), slow_pk, None, None, None
    if isinstance(field, serializers.ListSerializer):
        render_list = _list_renderer(field, _compile(field.child, language).render)
        return read, slow, render_list, None, render_list
    if isinstance(field, serializers.BaseSerializer):
        child = _compile(field, language).render
        return read, slow, child, None, child
    if isinstance(field, drf_fields.SerializerMethodField) and (
        representation is drf_fields.SerializerMethodField.to_representation
    ):
        return read, slow, getattr(field.parent, field.method_name), None, None
    if hasattr(field, "representation_in") and language is not None:  # None: any language
        return read, slow, field.representation_in(language), None, None
    if representation is drf_fields.ReadOnlyField.to_representation:
        return read, slow, None, None, None  # the value itself
    if representation is relations.SlugRelatedField.to_representation:
        return read, slow, attrgetter(field.slug_field.replace("__", ".")), None, None  # what it does
    convert = _CONVERTERS.get(representation, field.to_representation)
    return read, slow, convert, _same_type(field, representation), None


def _same_type(field, representation) -> type | None:
    """The type of the values that ``field`` (of DRF's own classes) represents as themselves."""
    if representation is drf_fields.IntegerField.to_representation:
        return int
    if representation is drf_fields.CharField.to_representation:
        return str
    if representation is drf_fields.BooleanField.to_representation:
        return bool
    if representation is drf_fields.ChoiceField.to_representation and all(
        type(key) is str for key in field.choice_strings_to_values.values()
    ):
        return str  # a str gives its choice's key, an equal str, or itself
    return None


_GIVEN = object()  # ... a field whose representation the caller gives


def _generate(serializer, fields, given: frozenset) -> Callable:
    """``render(obj, given)``: each field in its order, the ``given`` ones taken from ``given``."""
    represent_mapping = serializer.to_representation
    steps = tuple(
        (field_name, _GIVEN, None, None, None) if field_name in given else (field_name, read, slow, convert, same)
        for field_name, read, slow, convert, same in fields
    )

    def render(obj, given=_NOTHING_GIVEN):
        if _is_mapping(type(obj)):
            return {**represent_mapping(obj), **given}
        data = {}
        for field_name, read, slow, convert, same in steps:
            if read is _GIVEN:
                data[field_name] = given[field_name]
                continue
            if read is _ITSELF:
                value = obj
            elif read is _DRF:
                value = slow(obj)
            else:
                try:
                    value = getattr(obj, read)
                except ObjectDoesNotExist:
                    value = None
                except (AttributeError, KeyError):
                    value = _SLOW
                else:
                    if callable(value) and isinstance(value, _CALLED):
                        value = _SLOW
                if value is _SLOW:
                    value = slow(obj)
                if value is _SKIP:
                    continue
            if value is None or convert is None or (same is not None and type(value) is same):
                data[field_name] = value
            else:
                data[field_name] = convert(value)
        return data

    return render


_mapping_types: dict[type, bool] = {}


def _is_mapping(cls: type) -> bool:
    found = _mapping_types.get(cls)
    if found is None:
        found = _mapping_types[cls] = issubclass(cls, Mapping)
    return found


def _column(model, name: str) -> str | None:
    """The attribute DRF's pk-only optimisation reads for ``name`` (``Model.serializable_value``)."""
    try:
        return model._meta.get_field(name).attname
    except Exception:  # not a field, or a reverse relation (no column): DRF's own reading
        return None


def _list_renderer(list_serializer, child: Callable) -> Callable[[Iterable], list]:
    """``list_serializer.to_representation``: ``child`` of each object (of a manager's ``all()``)."""
    if type(list_serializer).to_representation is not serializers.ListSerializer.to_representation:
        _bound = list_serializer.child.fields  # now, under the compiling lock, not at a first use
        return list_serializer.to_representation

    def render_list(objects):
        if isinstance(objects, BaseManager):
            objects = objects.all()
        return [child(obj) for obj in objects]

    return render_list
