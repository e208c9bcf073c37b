"""The GraphQL schema of the provenance API (one module per type). `schema` is the default-limits instance
that `colabench schema --graphql` prints; the app builds its own with the configured limits."""

from __future__ import annotations

from collections.abc import Callable

import strawberry
from graphql import GraphQLError
from graphql.validation import NoSchemaIntrospectionCustomRule
from strawberry.extensions import (
    AddValidationRules,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    ParserCache,
    QueryDepthLimiter,
    SchemaExtension,
    ValidationCache,
)
from strawberry.types import ExecutionContext

from api.schema.error_policy import ErrorPolicy
from api.schema.limits import CostLimiter, QueryLimits
from api.schema.mutation import Mutation
from api.schema.query import Query


class ApiSchema(strawberry.Schema):
    """strawberry.Schema whose own error logging is off: ErrorPolicy logs unexpected errors (with the request id)
    and expected ones (bad ids, refused limits) are the client's business, not the server log's."""

    def process_errors(self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None) -> None:
        return None


def build_schema(limits: QueryLimits | None = None) -> strawberry.Schema:
    """The schema with its guards: depth, token, alias and cost limits, error policy, parse/validation caches."""
    limits = limits or QueryLimits()
    # The validation rules are built once: ValidationCache keys its cache on the rule classes, so a new class per
    # request (what strawberry's limiter extensions create) would never hit the cache.
    rules = [
        *QueryDepthLimiter(max_depth=limits.max_depth).validation_rules,
        *MaxAliasesLimiter(max_alias_count=limits.max_aliases).validation_rules,
    ]
    if not limits.introspection:
        rules.append(NoSchemaIntrospectionCustomRule)
    # Factories, not instances: every request gets its own extension objects (they hold request state).
    extensions: list[Callable[[], SchemaExtension]] = [
        ErrorPolicy,
        lambda: MaxTokensLimiter(max_token_count=limits.max_tokens),
        lambda: ParserCache(maxsize=512),
        lambda: AddValidationRules(rules),
        lambda: ValidationCache(maxsize=512),
        lambda: CostLimiter(limits.max_cost),
    ]
    return ApiSchema(query=Query, mutation=Mutation, extensions=extensions)


schema = build_schema()

__all__ = ["QueryLimits", "build_schema", "schema"]
