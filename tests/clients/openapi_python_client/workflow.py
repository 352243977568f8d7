"""A client generated from the live /doc by openapi-python-client, driving a full workflow:
terms (a category with a child, a tag), a venue, an organizer, an event linking them all, a
filtered list, a read by slug, an update, trash, restore and force delete; authenticated with a
bearer token. Every answer is parsed into the generated models, strictly: a field the document
does not declare (which the models would keep in `additional_properties`) is a failure.

    python3 workflow.py <API root, e.g. http://127.0.0.1:8080/calendar/events/v1> <bearer token>

Prints one JSON line of what it saw; exits non-zero on any failure.
"""

import importlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path


def generate(api: str, into: Path) -> None:
    subprocess.run(
        ["openapi-python-client", "generate", "--url", f"{api}/doc", "--meta", "none",
         "--output-path", str(into / "calendar_client")],
        check=True, capture_output=True, text=True,
    )
    sys.path.insert(0, str(into))


# schema.org JSON-LD is open by design (`/doc` declares it an object): its keys are
# schema.org's, not this API's.
OPEN = {"json_ld"}


def strict(value, path="answer"):
    """Fails on any field a model did not declare, anywhere in the answer."""
    if path.rsplit(".", 1)[-1] in OPEN:
        return
    extra = getattr(value, "additional_properties", None)
    if extra:
        raise AssertionError(f"{path}: undeclared fields {sorted(extra)}")
    if hasattr(value, "__attrs_attrs__"):
        for field in value.__attrs_attrs__:
            if field.name != "additional_properties":
                strict(getattr(value, field.name), f"{path}.{field.name}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            strict(item, f"{path}[{i}]")


def call(module: str, **kwargs):
    """Runs one operation; its parsed answer, after the strict check."""
    op = importlib.import_module(f"calendar_client.api.default.{module}")
    response = op.sync_detailed(**kwargs)
    if response.status_code >= 300 or response.parsed is None:
        raise AssertionError(f"{module}: {response.status_code} {response.content[:500]!r}")
    kind = type(response.parsed).__name__
    if kind == "Error":
        raise AssertionError(f"{module}: parsed as an error: {response.content[:500]!r}")
    strict(response.parsed, module)
    return response.parsed


def main() -> None:
    api, token = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        generate(api, Path(tmp))
        from calendar_client import AuthenticatedClient
        from calendar_client.models import (
            CreateCategoryJsonBody, CreateEventJsonBody, CreateOrganizerJsonBody,
            CreateTagJsonBody, CreateVenueJsonBody, UpdateEventJsonBody,
            UpdateEventJsonBodyStatus,
        )

        client = AuthenticatedClient(base_url=api, token=token, raise_on_unexpected_status=True)
        music = call("create_category", client=client, body=CreateCategoryJsonBody(name="Music"))
        jazz = call("create_category", client=client,
                    body=CreateCategoryJsonBody(name="Jazz", parent=music.id))
        free = call("create_tag", client=client, body=CreateTagJsonBody(name="free"))
        hall = call("create_venue", client=client,
                    body=CreateVenueJsonBody(venue="Riverside Hall", city="Springfield"))
        council = call("create_organizer", client=client,
                       body=CreateOrganizerJsonBody(organizer="City Arts Council",
                                                    email="arts@example.org"))
        event = call("create_event", client=client, body=CreateEventJsonBody(
            title="Winter Jazz Night", start_date="2027-12-04 20:00:00",
            end_date="2027-12-04 23:00:00", cost="15", venue=hall.id,
            organizer=[council.id], categories=[str(jazz.id)], tags=[str(free.id)],
        ))
        listed = call("list_events", client=client, start_date="2027-12-01",
                      end_date="2027-12-31", categories=[str(jazz.id)], venue=[hall.id])
        by_slug = call("get_event_by_slug", client=client, slug=event.slug)
        updated = call("update_event", client=client, id=event.id,
                       body=UpdateEventJsonBody(title="Winter Jazz Night (moved)"))
        trashed = call("delete_event", client=client, id=event.id)
        restored = call("update_event", client=client, id=event.id,
                        body=UpdateEventJsonBody(status=UpdateEventJsonBodyStatus.PUBLISH))
        deleted = call("delete_event", client=client, id=event.id, force=True)
        gone = importlib.import_module("calendar_client.api.default.get_event").sync_detailed(
            client=client, id=event.id)
        print(json.dumps({
            "event": event.id,
            "venue": event.venue.venue if hasattr(event.venue, "venue") else None,
            "organizers": [o.organizer for o in event.organizer],
            "categories": [c.name for c in event.categories],
            "tags": [t.name for t in event.tags],
            "listed": [e.id for e in listed.events],
            "total": listed.total,
            "by_slug": by_slug.id,
            "updated": updated.title,
            "trashed": trashed.status,
            "restored": restored.status,
            "deleted": deleted.id,
            "gone": gone.status_code,
        }))


if __name__ == "__main__":
    main()
