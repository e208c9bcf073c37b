"""The per-request GraphQL context: shared resources, this request's DataLoaders and who is asking."""

from __future__ import annotations

import hmac
from enum import Enum
from typing import TYPE_CHECKING, Any, TypeAlias

import strawberry
from strawberry.fastapi import BaseContext

from api.errors import AuthRequiredError, HiddenFieldError, MutationsDisabledError
from api.loaders import Loaders

if TYPE_CHECKING:
    from api.resources import Resources
    from api.settings import ApiSettings


class Auth(Enum):
    """What the request's Authorization header proved."""

    ANONYMOUS = "anonymous"
    TOKEN = "token"
    BAD_TOKEN = "bad_token"


def check_bearer(header: str | None, token: str | None) -> Auth:
    """Compare an `Authorization: Bearer <token>` header with the configured token in constant time."""
    if not header:
        return Auth.ANONYMOUS
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip() or token is None:
        return Auth.BAD_TOKEN
    return Auth.TOKEN if hmac.compare_digest(value.strip().encode(), token.encode()) else Auth.BAD_TOKEN


def gold_visible(settings: ApiSettings, auth: Auth) -> bool:
    """Whether a request may see gold fields (reference answers): the server reveals them to everyone, or the
    request carries the token. The one rule for GraphQL, its response cache and the report pages."""
    return settings.reveal_reference_answers or auth is Auth.TOKEN


class ApiContext(BaseContext):
    """Everything a resolver may use. Built once per request (DataLoaders never outlive it)."""

    def __init__(self, resources: Resources, auth: Auth = Auth.ANONYMOUS, request_id: str = "-") -> None:
        super().__init__()
        self.resources = resources
        self.settings = resources.settings
        self.reader = resources.reader
        self.loaders = Loaders(resources.reader)
        self.auth = auth
        self.request_id = request_id

    def require_writer(self) -> None:
        """Raise unless mutations are enabled and this request carries the configured token."""
        if not self.settings.mutations_enabled:
            raise MutationsDisabledError(
                "mutations are disabled: no API token is configured; set COLABENCH_API_TOKEN (or `token` in the "
                "[api] table of colabench.toml) and send it as `Authorization: Bearer <token>`"
            )
        if self.auth is Auth.BAD_TOKEN:
            raise AuthRequiredError("the bearer token is not valid for this server")
        if self.auth is not Auth.TOKEN:
            raise AuthRequiredError("this mutation needs `Authorization: Bearer <token>` with the API token")

    def require_gold_access(self, what: str) -> None:
        """Raise unless gold fields may be shown (see `gold_visible`)."""
        if self.gold_visible:
            return
        raise HiddenFieldError(
            f"{what} is hidden: send the API token as a bearer token, or start the API with "
            "COLABENCH_API_REVEAL_REFERENCE_ANSWERS=true"
        )

    @property
    def gold_visible(self) -> bool:
        """Gold fields may be shown: the config reveals them, or the request carries the token."""
        return gold_visible(self.settings, self.auth)


Info: TypeAlias = strawberry.Info[ApiContext, Any]


def context_of(info: Info) -> ApiContext:
    return info.context


def loaders_of(info: Info) -> Loaders:
    return info.context.loaders
