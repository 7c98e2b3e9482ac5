"""common.serializer_render: what it renders is ``Serializer(obj).data``, in DRF's edge cases too."""

import json
import threading
from types import SimpleNamespace

import pytest
from django.core.exceptions import ImproperlyConfigured, ObjectDoesNotExist
from django.db import models
from django.utils import translation
from rest_framework import serializers

from common.serializer_render import renderer
from quizzes.models import Answer, Regrade


def assert_as_drf(serializer_class, obj, **given):
    expected = serializer_class(obj).data
    found = renderer(serializer_class)(obj, **given)
    assert type(found) is dict
    assert json.dumps(found) == json.dumps(expected)  # values, and the keys in their order
    assert found == expected
    return found


class Inner(serializers.Serializer):
    x = serializers.IntegerField()
    label = serializers.CharField(source="name")


class Everything(serializers.Serializer):
    number = serializers.IntegerField()
    text = serializers.CharField()
    flag = serializers.BooleanField()
    kind = serializers.ChoiceField(choices=[(1, "one"), (2, "two")])
    word = serializers.ChoiceField(choices=["a", "b"])
    when = serializers.DateTimeField()
    anything = serializers.ReadOnlyField()
    dotted = serializers.IntegerField(source="inner.x", allow_null=True)  # None when inner is
    called = serializers.IntegerField(source="compute")
    method = serializers.SerializerMethodField()
    named = serializers.SerializerMethodField(method_name="other")
    whole = serializers.CharField(source="*")
    inner = Inner()
    inners = Inner(many=True)
    optional = serializers.IntegerField(required=False)
    defaulted = serializers.IntegerField(default=7)
    nullable = serializers.IntegerField(allow_null=True)
    written = serializers.IntegerField(write_only=True)
    values = serializers.ListField(child=serializers.IntegerField())

    def get_method(self, obj) -> str:
        return f"m{obj.number}"

    def other(self, obj) -> list:
        return [obj.number]


class Thing(SimpleNamespace):
    def compute(self):  # a method without arguments: DRF calls it
        return 42

    def __str__(self):
        return f"thing {self.number}"


def thing(**changes) -> Thing:
    from django.utils import timezone

    values = {
        "number": 3,
        "text": "t",
        "flag": True,
        "kind": 1,
        "word": "a",
        "when": timezone.now(),
        "anything": {"nested": [1, 2]},
        "inner": SimpleNamespace(x=1, name="first"),
        "inners": [SimpleNamespace(x=2, name="second"), SimpleNamespace(x=3, name="third")],
        "optional": 4,
        "defaulted": 5,
        "nullable": 6,
        "values": [1, "2"],
    }
    return Thing(**{**values, **changes})


class TestValues:
    def test_every_kind_of_field(self):
        found = assert_as_drf(Everything, thing())
        assert "written" not in found and found["called"] == 42 and found["whole"] == "thing 3"

    @pytest.mark.parametrize(
        "changes",
        [
            {"number": "12", "text": 5, "flag": "true", "kind": "2", "word": "b"},  # converted, as DRF does
            {"number": True, "flag": 0, "kind": 3, "text": ""},  # a bool is no int; an unknown choice is itself
            {"number": None, "text": None, "flag": None, "when": None, "inner": None, "nullable": None},
            {"inners": (), "values": []},
        ],
    )
    def test_values_drf_converts_or_leaves_alone(self, changes):
        assert_as_drf(Everything, thing(**changes))

    def test_missing_attributes_as_drf(self):
        obj = thing()
        del obj.optional, obj.defaulted, obj.nullable
        found = assert_as_drf(Everything, obj)
        assert "optional" not in found and found["defaulted"] == 7 and found["nullable"] is None

    def test_a_missing_required_attribute_is_drfs_error(self):
        obj = thing()
        del obj.text
        with pytest.raises(AttributeError) as drf:
            _ = Everything(obj).data
        with pytest.raises(AttributeError) as fast:
            renderer(Everything)(obj)
        assert str(fast.value) == str(drf.value)

    def test_an_object_that_does_not_exist_is_none(self):
        class Missing(Thing):
            @property
            def inner(self):
                raise ObjectDoesNotExist

        assert assert_as_drf(Everything, Missing(**vars(thing())))["inner"] is None

    def test_a_mapping_is_read_by_its_keys(self):
        class Pair(serializers.Serializer):
            items = serializers.IntegerField()
            value = serializers.IntegerField(source="get")

        assert assert_as_drf(Pair, {"items": 1, "get": 2}) == {"items": 1, "value": 2}

    def test_an_enum_choice(self):
        class Colour(models.TextChoices):
            RED = "red", "Red"

        class Painted(serializers.Serializer):
            colour = serializers.ChoiceField(choices=Colour.choices)

        assert assert_as_drf(Painted, SimpleNamespace(colour=Colour.RED)) == {"colour": "red"}

    def test_many(self):
        objects = [thing(number=number) for number in range(3)]
        assert json.dumps(renderer(Everything).many(objects)) == json.dumps(Everything(objects, many=True).data)


class TestModels:
    def test_primary_keys_read_from_their_column(self):
        class Feedback(serializers.ModelSerializer):
            class Meta:
                model = Answer
                fields = ["id", "question", "choice", "is_correct", "language"]
                read_only_fields = fields

        answer = Answer(id=4, question_id=5, choice_id=6, is_correct=True, language="ur")
        assert assert_as_drf(Feedback, answer) == {
            "id": 4,
            "question": 5,
            "choice": 6,
            "is_correct": True,
            "language": "ur",
        }

    def test_a_null_foreign_key(self):
        class Changed(serializers.ModelSerializer):
            class Meta:
                model = Regrade
                fields = ["question", "old_correct_choice", "new_correct_choice"]
                read_only_fields = fields

        found = assert_as_drf(Changed, Regrade(question_id=1, old_correct_choice_id=None, new_correct_choice_id=3))
        assert found == {"question": 1, "old_correct_choice": None, "new_correct_choice": 3}

    def test_hyperlinked_fields_are_refused(self):
        class Linked(serializers.ModelSerializer):
            question = serializers.HyperlinkedRelatedField(view_name="question-detail", read_only=True)

            class Meta:
                model = Answer
                fields = ["question"]

        with pytest.raises(ImproperlyConfigured):
            renderer(Linked)


class TestOwnRepresentations:
    def test_a_serializer_with_its_own_to_representation(self):
        class Own(Inner):
            def to_representation(self, instance):
                return {"own": instance.x}

        class Outer(serializers.Serializer):
            inner = Own()
            inners = Own(many=True)

        assert assert_as_drf(Own, SimpleNamespace(x=1)) == {"own": 1}
        assert_as_drf(Outer, SimpleNamespace(inner=SimpleNamespace(x=2), inners=[SimpleNamespace(x=3)]))
        with pytest.raises(TypeError):
            renderer(Own)(SimpleNamespace(x=1), x=2)

    def test_a_list_serializer_class(self):
        class Reversed(serializers.ListSerializer):
            def to_representation(self, data):
                return list(reversed(super().to_representation(data)))

        class Listed(Inner):
            class Meta:
                list_serializer_class = Reversed

        class Outer(serializers.Serializer):
            inners = Listed(many=True)

        objects = [SimpleNamespace(x=1, name="a"), SimpleNamespace(x=2, name="b")]
        assert (
            renderer(Listed).many(objects)
            == Listed(objects, many=True).data
            == [
                {"x": 2, "label": "b"},
                {"x": 1, "label": "a"},
            ]
        )
        assert_as_drf(Outer, SimpleNamespace(inners=objects))


class TestGiven:
    def test_given_fields_keep_their_place_and_are_not_read(self):
        obj = thing()
        expected = Everything(thing(when=obj.when, inners=[SimpleNamespace(x=0, name="given")])).data
        del obj.inners
        found = renderer(Everything)(obj, inners=[{"x": 0, "label": "given"}])
        assert json.dumps(found) == json.dumps(expected)

    def test_an_unknown_field_is_refused(self):
        with pytest.raises(TypeError):
            renderer(Everything)(thing(), nothing=1)

    def test_nested(self):
        render = renderer(Everything).nested("inners")
        assert render([SimpleNamespace(x=1, name="a")]) == [{"x": 1, "label": "a"}]
        with pytest.raises(KeyError):
            renderer(Everything).nested("number")


class Spoken(serializers.Field):
    """A field in the active language, as the API's translated texts are."""

    def __init__(self, **kwargs):
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, obj):
        return getattr(obj, translation.get_language(), obj.en)

    def representation_in(self, language):
        return lambda obj: getattr(obj, language, obj.en)


class Greeting(serializers.Serializer):
    hello = Spoken()
    number = serializers.IntegerField()


class Greetings(serializers.Serializer):
    first = Greeting(source="*")
    all = Greeting(source="greetings", many=True)


class TestLanguages:
    def greetings(self):
        greetings = [SimpleNamespace(en="hello", ur="salaam", number=1), SimpleNamespace(en="hi", number=2)]
        return SimpleNamespace(en="hey", id="halo", number=0, greetings=greetings)

    @pytest.mark.parametrize("language", ["en", "ur", "sn", "id"])
    def test_compiled_per_language(self, language):
        with translation.override(language):
            assert_as_drf(Greetings, self.greetings())

    def test_the_language_is_asked_once_per_call(self, monkeypatch):
        from common import serializer_render

        asked = []
        monkeypatch.setattr(serializer_render, "get_language", lambda: asked.append(1) or "ur")
        with translation.override("ur"):
            found = renderer(Greetings)(self.greetings())
        assert [greeting["hello"] for greeting in found["all"]] == ["salaam", "hi"]
        assert len(asked) == 1

    def test_threads_in_different_languages_at_once(self):
        """One renderer, compiled while eight threads in four languages ask for it."""

        class Fresh(Greetings):  # not compiled yet
            pass

        barrier = threading.Barrier(8)
        results, expected, errors = {}, {}, []

        def work(index, language):
            try:
                with translation.override(language):
                    expected[index] = json.dumps(Fresh(self.greetings()).data)
                    barrier.wait()
                    results[index] = [json.dumps(renderer(Fresh)(self.greetings())) for _ in range(200)]
            except Exception as error:  # reported below, in the test's thread
                errors.append(error)

        threads = [
            threading.Thread(target=work, args=(index, language))
            for index, language in enumerate(["en", "ur", "sn", "id"] * 2)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors
        for index, renders in results.items():
            assert set(renders) == {expected[index]}
        assert len(set(expected.values())) == 3  # sn has no text of its own: English
