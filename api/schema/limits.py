"""Limits every GraphQL request is held to: depth, tokens, aliases (strawberry's validators) and an estimated
cost (our own): each object-valued field costs 1 plus its subtree, and a list field multiplies that by the page
size it asks for (`first`, `limit` or `k`; a list without one counts as min(its default, 25) items)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from graphql import (
    FieldNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    IntValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    VariableNode,
    get_named_type,
)
from strawberry.extensions import SchemaExtension

from api.schema.values import MAX_PAGE

# Size arguments of list fields. A list asked for without one counts as its default page, at most
# ASSUMED_LIST_SIZE (defaults are generous caps, not typical sizes), or DEFAULT_LIST_SIZE when it has no size.
SIZE_ARGUMENTS = ("first", "limit", "k")
DEFAULT_LIST_SIZE = 5
ASSUMED_LIST_SIZE = 25


@dataclass(frozen=True)
class QueryLimits:
    max_depth: int = 10
    max_tokens: int = 2000
    max_aliases: int = 30
    max_cost: int = 50_000
    introspection: bool = True


def _is_list(type_: Any) -> bool:
    while isinstance(type_, GraphQLNonNull):
        type_ = type_.of_type
    return isinstance(type_, GraphQLList)


class _CostWalker:
    def __init__(self, schema: GraphQLSchema, fragments: dict[str, Any], variables: dict[str, Any]) -> None:
        self.schema = schema
        self.fragments = fragments
        self.variables = variables

    def list_size(self, node: FieldNode, field_def: Any) -> int:
        for argument in node.arguments or ():
            if argument.name.value not in SIZE_ARGUMENTS:
                continue
            value = argument.value
            if isinstance(value, IntValueNode):
                return max(1, int(value.value))
            if isinstance(value, VariableNode):
                given = self.variables.get(value.name.value)
                return max(1, int(given)) if isinstance(given, int) else MAX_PAGE
        for name in SIZE_ARGUMENTS:
            arg = field_def.args.get(name)
            if arg is not None and isinstance(arg.default_value, int):
                return max(1, min(arg.default_value, ASSUMED_LIST_SIZE))
        return DEFAULT_LIST_SIZE

    def cost(self, selection_set: SelectionSetNode | None, parent: Any, seen: frozenset[str]) -> int:
        if selection_set is None or not isinstance(parent, GraphQLObjectType):
            return 0
        total = 0
        for selection in selection_set.selections:
            if isinstance(selection, FieldNode):
                name = selection.name.value
                field_def = parent.fields.get(name)
                if name.startswith("__") or field_def is None:
                    continue
                named = get_named_type(field_def.type)
                if not isinstance(named, GraphQLObjectType):
                    continue  # scalars and lists of scalars come with their object
                child = self.cost(selection.selection_set, named, seen)
                size = self.list_size(selection, field_def) if _is_list(field_def.type) else 1
                total += size * (1 + child)
            elif isinstance(selection, InlineFragmentNode):
                target = (
                    self.schema.get_type(selection.type_condition.name.value) if selection.type_condition else parent
                )
                total += self.cost(selection.selection_set, target, seen)
            elif isinstance(selection, FragmentSpreadNode):
                name = selection.name.value
                fragment = self.fragments.get(name)
                if fragment is None or name in seen:
                    continue
                target = self.schema.get_type(fragment.type_condition.name.value)
                total += self.cost(fragment.selection_set, target, seen | {name})
        return total


def estimate_cost(schema: GraphQLSchema, document: Any, operation_name: str | None, variables: dict[str, Any]) -> int:
    """Estimated number of objects the operation can touch (the largest operation when none is named)."""
    fragments = {d.name.value: d for d in document.definitions if d.kind == "fragment_definition"}
    walker = _CostWalker(schema, fragments, variables or {})
    costs = []
    for definition in document.definitions:
        if not isinstance(definition, OperationDefinitionNode):
            continue
        if operation_name and (definition.name is None or definition.name.value != operation_name):
            continue
        root = schema.get_root_type(definition.operation)
        costs.append(walker.cost(definition.selection_set, root, frozenset()))
    return max(costs, default=0)


class CostLimiter(SchemaExtension):
    """Refuses operations whose estimated cost exceeds `max_cost`, before anything runs (variables included)."""

    def __init__(self, max_cost: int) -> None:
        super().__init__()
        self.max_cost = max_cost

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        document = context.graphql_document
        if document is not None and not context.pre_execution_errors:
            cost = estimate_cost(context.schema._schema, document, context.operation_name, context.variables or {})
            if cost > self.max_cost:
                context.pre_execution_errors = [
                    GraphQLError(
                        f"query refused: estimated cost {cost} is above the limit {self.max_cost}; ask for smaller "
                        "pages (`first`, `limit`, `k`) or fewer nested lists",
                        extensions={"code": "QUERY_TOO_COSTLY"},
                    )
                ]
        yield
