"""`langmem`: LangMem (`langmem` 0.0.30, LangChain) building a profile's memories with its own memory store
manager (`create_memory_store_manager`), one `invoke` per public user-assistant pair in history order.
`langmem_deletes`: the same manager with `enable_deletes=True`, which LangMem's factory leaves off (its signature
says False, its docstring "Defaults to True"; the signature is what runs, so `langmem` keeps False and the
deleting manager is a system of its own, named on every write and run).

For each pair LangMem searches its store for memories near the pair's last message, then asks the model
(trustcall: tool calls `Memory` to insert, `PatchDoc` to rewrite an existing memory and, with deletes enabled,
`RemoveDoc` to delete one) and writes the result back to the store. The store is LangGraph's in-memory store
indexed with the project's encoder (agents.memory.langmem.store), rebuilt from the graph's
`Memory {system: <system>}` nodes before the first pair of a profile, after a failure, or when the last pair's
writes are not in the graph; the model is the `memory` role's client (agents.memory.langmem.chat_model).

Events (appended by agents.memory.build with the pair's MemoryPairProcessed, in one transaction): a new memory
is an ADD of `<system>:<key>` (key: LangMem's, derived from system, profile and pair: agents.memory.langmem.pair_ids)
with the pair's turns as sources; a memory LangMem rewrote is an UPDATE that keeps its turns and adds the
pair's; a memory it removed is a DELETE naming the pair's turns. Metadata: key, kind, content (LangMem's value),
the pair (`pair_id` / `updated_by_pair` / `deleted_by_pair`) and the pair's time (`created_at`, ISO 8601).

Failures LangMem or trustcall would swallow stop the pair instead: a failed request is re-raised past
trustcall's `except Exception` (chat_model.SdkCallAbort), trustcall's logged errors (an invalid tool call it
drops, a patch it cannot apply: logger `extraction`) fail the pair through the SDK log watch; a call of a tool the
manager does not offer (`RemoveDoc` with deletes off) that trustcall's repair did not rename, which trustcall drops
without a log, fails it as a swallowed failure; a put LangMem submitted to its executor without reading the result
must be in the store afterwards and a delete must have removed its memory; a delete the system did not enable, or
of a memory the profile does not hold, fails the pair.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar, Literal

from agents.memory.build import processed_pair_ids
from agents.memory.cut_replies import CutReplyAbort
from agents.memory.errors import MemoryBackendError, SdkSwallowedFailureError
from agents.memory.pair_time import iso_created_at
from agents.memory.pairs import HistoryPair
from agents.memory.registry import BuildContext, MemorySystem, register_memory_system
from graph.cypher_files import load_cypher
from graph.events import MemoryWritten

SDK_VERSION = "0.0.30"
SYSTEM = "langmem"


@register_memory_system
class LangmemSystem(MemorySystem):
    name = SYSTEM
    label = "LangMem"
    description = f"LangMem (langmem {SDK_VERSION}): memories its store manager extracts and patches (deletes off, " \
        "LangMem's default), one invoke per public pair"
    needs_llm = True
    search_recipe = "LANGMEM"
    memkb_cards = False
    builder = f"langmem-{SDK_VERSION}/v1"
    # trustcall logs an invalid tool call it drops or a patch it cannot apply on its logger "extraction"
    sdk_loggers = ("extraction", "langmem", "trustcall")
    # create_memory_store_manager's `enable_deletes` (its default: False)
    enable_deletes: ClassVar[bool] = False

    def __init__(self, ctx: BuildContext) -> None:
        super().__init__(ctx)
        self._store: Any = None
        self._model: Any = None
        self._manager: Any = None
        self._profile: str | None = None
        self._last_pair: str | None = None
        # key -> (memory id, value, source turns) of the profile's live memories
        self._known: dict[str, tuple[str, dict[str, Any], list[str]]] = {}

    # --- state ----------------------------------------------------------------------------------------

    def _open(self) -> None:
        from langmem import create_memory_store_manager

        from agents.memory.langmem import pair_ids
        from agents.memory.langmem.chat_model import ProjectChatModel
        from agents.memory.langmem.store import RecordingStore

        encoder = self.ctx.store.encoder
        if encoder is None:
            raise MemoryBackendError("LangMem: the store has no encoder; LangMem's store is indexed by the project's")
        pair_ids.install()
        self._store = RecordingStore(encoder)
        if self.ctx.llm is not None:
            self._model = ProjectChatModel(client=self.ctx.llm, system=self.name)
            options: dict[str, Any] = {"enable_deletes": True} if self.enable_deletes else {}
            self._manager = create_memory_store_manager(self._model, store=self._store, **options)

    def _ensure_state(self, profile_id: str) -> None:
        stale = self._store is None or self._profile != profile_id
        if not stale and self._last_pair is not None:
            stale = self._last_pair not in processed_pair_ids(self, profile_id)
        if stale:
            self._load(profile_id)

    def _load(self, profile_id: str) -> None:
        """A fresh store holding exactly the profile's live memories in the graph."""
        from agents.memory.langmem.store import namespace_of

        self._open()
        self._known = {}
        store = self.ctx.store
        with store.driver.session(database=store.database) as session:
            rows = list(session.run(load_cypher("memory/amem_notes"), profile_id=profile_id, system=self.name))
        for row in rows:
            meta = (json.loads(row["payload"]).get("metadata") or {})
            key = str(meta.get("key") or row["memory_id"].split(":", 1)[1])
            value = {"kind": str(meta.get("kind") or "Memory"), "content": meta.get("content")}
            self._store.put(namespace_of(profile_id), key, value)
            self._known[key] = (str(row["memory_id"]), value, list(row["source_turn_ids"]))
        self._profile = profile_id
        self._last_pair = None

    def _release(self) -> None:
        self._store = self._model = self._manager = None
        self._profile = None

    def close(self) -> None:
        self._release()

    # --- building -------------------------------------------------------------------------------------

    def build_pair(self, profile_id: str, pair: HistoryPair) -> list[MemoryWritten]:
        from agents.memory.langmem.chat_model import SdkCallAbort
        from agents.memory.langmem.pair_ids import pair_seed

        messages = pair.messages()
        if not messages:
            return []
        self._ensure_state(profile_id)
        if self._manager is None:
            raise MemoryBackendError("LangMem needs the `memory` LLM role; configure an endpoint for it")
        self._model.clear_pair()
        self._store.start_recording()
        try:
            with pair_seed(self.name, profile_id, pair.pair_id):
                puts = self._manager.invoke(
                    {"messages": messages}, config={"configurable": {"langgraph_user_id": profile_id}}
                )
        except SdkCallAbort as abort:
            self._release()
            raise abort.error from None
        except CutReplyAbort as abort:
            self._release()
            raise abort.error from None
        except Exception as exc:
            self._release()
            raise MemoryBackendError(
                f"memory system {self.name!r}, profile {profile_id!r}: LangMem failed on pair {pair.pair_id!r} "
                f"({type(exc).__name__}: {exc}); nothing of the pair was written"
            ) from exc
        finally:
            recorded = self._store.stop_recording() if self._store is not None else []
        if self._model.failures:  # trustcall caught an abort after all: the pair still failed
            failure = self._model.failures[0]
            self._release()
            raise failure
        dropped = self._model.dropped_calls(self._offered_tools())
        if dropped:
            self._release()
            raise SdkSwallowedFailureError(
                f"memory system {self.name!r}, profile {profile_id!r}: LangMem's model called "
                f"{sorted(set(dropped.values()))} on pair {pair.pair_id!r}, which its manager does not offer "
                f"(enable_deletes={self.enable_deletes}), and trustcall dropped the call without a log; the pair "
                "counts as failed: nothing of it was written, and the build of this profile stops here"
            )
        try:
            writes = self._writes(profile_id, pair, list(puts), recorded)
        except BaseException:
            self._release()
            raise
        self._last_pair = pair.pair_id
        return writes

    def _writes(self, profile_id: str, pair: HistoryPair, puts: list[dict[str, Any]], recorded: list[Any]
                ) -> list[MemoryWritten]:
        from agents.memory.langmem.store import memory_text, namespace_of

        namespace = namespace_of(profile_id)
        created_at = iso_created_at(self.name, pair)
        writes: list[MemoryWritten] = []
        for put in puts:
            key = str(put["key"])
            value = dict(put["value"])
            held = self._store.get(namespace, key)
            if tuple(put["namespace"]) != namespace or held is None or held.value != value:
                raise MemoryBackendError(
                    f"memory system {self.name!r}, profile {profile_id!r}: LangMem's put of memory {key!r} (pair "
                    f"{pair.pair_id!r}) is not in its store (LangMem does not read its store's put results); "
                    "nothing of the pair was written"
                )
            text = memory_text(value)
            if not text.strip():
                raise MemoryBackendError(
                    f"memory system {self.name!r}, profile {profile_id!r}: LangMem wrote memory {key!r} with no "
                    f"text on pair {pair.pair_id!r}; nothing of the pair was written"
                )
            metadata: dict[str, Any] = {"key": key, "kind": value.get("kind"), "content": value.get("content"),
                                        "created_at": created_at}
            op: Literal["ADD", "UPDATE"]
            if key in self._known:
                memory_id, _, previous = self._known[key]
                op, sources = "UPDATE", list(dict.fromkeys([*previous, *pair.turn_ids]))
                metadata["updated_by_pair"] = pair.pair_id
            else:
                memory_id, op, sources = self.memory_id_of(key), "ADD", pair.turn_ids
                metadata["pair_id"] = pair.pair_id
            writes.append(MemoryWritten(system=self.name, memory_id=memory_id, profile_id=profile_id, op=op,
                                        text=text, source_turn_ids=list(sources), metadata=metadata))
            self._known[key] = (memory_id, value, list(sources))
        for op_ in sorted((o for o in recorded if o.value is None), key=lambda o: str(o.key)):
            writes.append(self._delete(profile_id, pair, str(op_.key), tuple(op_.namespace), created_at))
        return writes

    def _delete(self, profile_id: str, pair: HistoryPair, key: str, namespace: tuple[str, ...],
                created_at: str | None) -> MemoryWritten:
        """The DELETE of a memory LangMem removed from its store while taking in `pair`, traced to the pair's
        turns; a delete this system did not enable, of a memory the profile does not hold, or that left the
        memory in the store fails the pair (never skipped: the graph would keep a memory LangMem no longer has)."""
        from agents.memory.langmem.store import namespace_of

        where = f"memory system {self.name!r}, profile {profile_id!r}: LangMem deleted memory {key!r} on pair " \
            f"{pair.pair_id!r}"
        if not self.enable_deletes:
            raise MemoryBackendError(f"{where}, but this system runs LangMem with enable_deletes=False (its "
                                     "default); nothing of the pair was written")
        if namespace != namespace_of(profile_id) or key not in self._known:
            raise MemoryBackendError(f"{where} (namespace {list(namespace)}), which is not one of the profile's live "
                                     "memories; nothing of the pair was written")
        if self._store.get(namespace, key) is not None:
            raise MemoryBackendError(f"{where}, but the memory is still in its store (LangMem does not read its "
                                     "store's delete results); nothing of the pair was written")
        memory_id = self._known.pop(key)[0]
        return MemoryWritten(system=self.name, memory_id=memory_id, profile_id=profile_id, op="DELETE",
                             source_turn_ids=pair.turn_ids,
                             metadata={"key": key, "deleted_by_pair": pair.pair_id, "created_at": created_at})

    def _offered_tools(self) -> set[str]:
        """The tools LangMem's extraction may call: its schemas, `PatchDoc`, and `RemoveDoc` with deletes on."""
        schemas = {schema.__name__ for schema in self._manager.schemas}
        return schemas | {"PatchDoc"} | ({"RemoveDoc"} if self.enable_deletes else set())

    # --- search ---------------------------------------------------------------------------------------

    def sdk_search(self, profile_id: str, query: str, k: int = 5) -> list[str]:
        """LangMem's own search (`store.search` of its namespace, as its search tool runs it), as memory ids."""
        from agents.memory.langmem.store import namespace_of

        if self._store is None or self._profile != profile_id:
            self._load(profile_id)
        hits = self._store.search(namespace_of(profile_id), query=query, limit=k)
        return [self._known[hit.key][0] if hit.key in self._known else self.memory_id_of(hit.key) for hit in hits]

    @classmethod
    def memory_id_of(cls, key: str) -> str:
        return f"{cls.name}:{key}"


@register_memory_system
class LangmemDeletesSystem(LangmemSystem):
    """LangMem's store manager with `enable_deletes=True` (not its default): trustcall offers `RemoveDoc` beside
    `PatchDoc` whenever existing memories are shown, and a removed memory is a DELETE traced to the pair."""

    name = "langmem_deletes"
    label = "LangMem (deletes on)"
    description = f"LangMem (langmem {SDK_VERSION}) with enable_deletes=True (not LangMem's default): memories its " \
        "store manager extracts, patches and removes, one invoke per public pair"
    search_recipe = "LANGMEM_DELETES"
    builder = f"langmem-{SDK_VERSION}+deletes/v1"
    enable_deletes = True

    @classmethod
    def deviations(cls) -> list[str]:
        return ["langmem_deletes: create_memory_store_manager(enable_deletes=True); LangMem's default is False"]
