"""SCORM 1.2 and 2004 packages: a well-formed manifest listing every file, and the module
inside a scorm-again LMS harness reporting progress, score and suspend data."""
import functools
import http.server
import json
import re
import shutil
import threading
import xml.etree.ElementTree as ET
import zipfile

import pytest

from code_typing import type_code
from conftest import NO_SNAPSHOT_DOWNLOAD, OPEN_SHADOW_ROOTS, OriginGuard, QuietHandler, ROOT
from seqbuild import scorm
from seqlabs import api

VERSIONS = {"1.2": ("scorm12", "Scorm12API", "LMSSetValue"), "2004": ("scorm2004", "Scorm2004API", "SetValue")}


@pytest.fixture(scope="module", params=list(VERSIONS))
def package(request, site_dir, tmp_path_factory):
    version = request.param
    out = tmp_path_factory.mktemp(f"scorm{version}") / "package.zip"
    return version, scorm.make_package(site_dir, out, version)


def test_manifest_is_well_formed_and_lists_every_file(package):
    version, path = package
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        root = ET.fromstring(zf.read("imsmanifest.xml"))
    ns = {"cp": root.tag[1:].split("}")[0]}
    assert root.find("cp:metadata/cp:schema", ns).text == "ADL SCORM"
    assert root.find("cp:metadata/cp:schemaversion", ns).text == {"1.2": "1.2", "2004": "2004 4th Edition"}[version]
    orgs = root.find("cp:organizations", ns)
    assert orgs.get("default") == orgs.find("cp:organization", ns).get("identifier")
    item = orgs.find("cp:organization/cp:item", ns)
    resource = root.find("cp:resources/cp:resource", ns)
    assert item.get("identifierref") == resource.get("identifier")
    scorm_type = [v for k, v in resource.attrib.items() if k.lower().endswith("scormtype")]
    assert scorm_type == ["sco"] and resource.get("href") == "module/index.html"
    listed = {f.get("href") for f in resource.findall("cp:file", ns)}
    assert listed <= names and "module/index.html" in listed
    assert {"assets/vendor/pyodide/pyodide.asm.wasm", "assets/seqlabs-models.zip", "sw.js"} <= listed
    assert names - listed == {"imsmanifest.xml"}


# Makes the LMS refuse the first learner response it is sent, for real: the wrapper passes on a
# value with a line break, which neither version's validation accepts for these types.
REFUSE_FIRST_RESPONSE = """
  const api = window.{global_name};
  const set = api.{setter}.bind(api);
  let refused = false;
  api.{setter} = (element, value) => {{
    if (!refused && /^cmi\\.interactions\\.\\d+\\.(student|learner)_response$/.test(element)) {{
      refused = true;
      return set(element, "not\\na number");
    }}
    return set(element, value);
  }};
"""


def harness(tmp_path, version, package_path, initial=None, extra=""):
    name, api_class, _ = VERSIONS[version]
    with zipfile.ZipFile(package_path) as zf:
        zf.extractall(tmp_path / "content")
    shutil.copy(ROOT / "node_modules" / "scorm-again" / "dist" / f"{name}.js", tmp_path / "lms.js")
    global_name = "API" if version == "1.2" else "API_1484_11"
    setter = VERSIONS[version][2]
    (tmp_path / "lms.html").write_text(f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>LMS</title>
<script src="lms.js"></script>
<script>
  window.calls = [];
  window.{global_name} = new {api_class}({{autocommit: false, logLevel: 5}});
  const initial = {json.dumps(initial)};
  if (initial) window.{global_name}.loadFromJSON(initial, "cmi");
  window.{global_name}.on("{setter}.cmi.*", (element, value) => window.calls.push([element, String(value)]));
  for (const name of ["{ 'LMSInitialize' if version == '1.2' else 'Initialize' }", "{ 'LMSCommit' if version == '1.2' else 'Commit' }",
                      "{ 'LMSFinish' if version == '1.2' else 'Terminate' }"]) {{
    window.{global_name}.on(name, () => window.calls.push([name, ""]));
  }}
  window.lmsState = () => window.{global_name}.renderCMIToJSONObject();
  {extra.format(global_name=global_name, setter=setter)}
</script></head>
<body><iframe id="sco" title="module" src="content/module/index.html#exercises" style="width: 100%; height: 900px"></iframe></body></html>""")


@pytest.fixture
def lms_server(tmp_path):
    handler = functools.partial(QuietHandler, directory=str(tmp_path))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield tmp_path, f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    httpd.server_close()


def run_session(browser, origin, act=None):
    """One launch of the SCO in the LMS page: act(frame) does what the learner does; returns
    what act returned, the LMS calls and the LMS's CMI data as JSON."""
    context = browser.new_context()
    context.add_init_script(NO_SNAPSHOT_DOWNLOAD)
    context.add_init_script(OPEN_SHADOW_ROOTS)
    guard = OriginGuard(origin)
    context.route("**/*", guard.route)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{origin}/lms.html", wait_until="load")
    frame = page.frame_locator("#sco")
    frame.locator(".exercise-summary").wait_for()
    seen = act(frame) if act else None
    # Closing the SCO (the LMS removes its frame) must commit and terminate.
    page.evaluate("() => document.getElementById('sco').remove()")
    calls = page.evaluate("() => window.calls")
    state = page.evaluate("() => window.lmsState()")
    context.close()
    assert guard.off_origin == [] and errors == []
    return seen, calls, state


def interactions(state):
    """The LMS's interactions, in order, as plain dicts."""
    found = state["cmi"]["interactions"]
    rows = found.get("childArray", found) if isinstance(found, dict) else found
    if isinstance(rows, dict):
        rows = [rows[k] for k in sorted((k for k in rows if k.isdigit()), key=int)]
    return rows


def check(frame, ex, label, value):
    box = frame.locator(ex)
    box.get_by_label(label).fill(value)
    box.get_by_role("button", name="Check").click()
    return box.locator(".exercise-feedback").text_content()


def first_launch(frame):
    """Four attempts (one wrong), a written answer, and new numbers for Exercise 2."""
    assert frame.locator("#exercise-context-value .exercise-feedback").text_content() == ""
    assert check(frame, "#exercise-context-value", "Context value", "2").startswith("✗")
    assert check(frame, "#exercise-context-value", "Context value", "19/10") == "✓ Correct."
    box = frame.locator("#exercise-sequential-steps")
    box.get_by_label("Sequential steps for the RNN").fill("1000")
    box.get_by_label("Sequential steps for one self-attention layer").fill("1")
    box.get_by_role("button", name="Check").click()
    frame.locator("#exercise-extend textarea").fill("Only the last state reaches the decoder.")
    frame.locator("#exercise-extend").get_by_role("button", name="Compare with the solution").click()
    ex2 = frame.locator("#exercise-vanishing-fraction")
    ex2.get_by_role("button", name="New numbers").click()
    frame.locator("#exercise-vanishing-fraction[data-variant-state='ready']").wait_for(timeout=90_000)
    seed = int(ex2.get_attribute("data-seed"))
    want = api.call("exercise-variant", {"exercise": "exercise-vanishing-fraction", "seed": seed})
    assert check(frame, "#exercise-vanishing-fraction", "Largest fraction", want["answer_text"]) == "✓ Correct."
    return seed, want


@pytest.mark.browser
def test_the_module_reports_to_the_lms_and_restores_answers(browser, package, lms_server):
    version, path = package
    folder, origin = lms_server
    harness(folder, version, path)
    (seed, want), calls, state = run_session(browser, origin, first_launch)
    values = dict(calls)
    if version == "1.2":
        assert values["cmi.core.score.raw"] == "4" and values["cmi.core.score.max"] == "9"
        assert values["cmi.core.score.min"] == "0" and values["cmi.core.lesson_status"] == "incomplete"
        assert values["cmi.core.exit"] == "suspend"
    else:
        assert values["cmi.score.raw"] == "4" and values["cmi.score.scaled"] == "0.4444"
        assert values["cmi.completion_status"] == "incomplete" and values["cmi.success_status"] == "unknown"
        assert values["cmi.exit"] == "suspend"
    suspend = values["cmi.suspend_data"]
    assert len(suspend) <= 4096
    rows = json.loads(suspend)
    assert rows["exercise-context-value"][1] == 1 and rows["exercise-vanishing-fraction"][5] == seed
    init = "LMSInitialize" if version == "1.2" else "Initialize"
    assert calls[0][0] == init and any(c[0] in ("LMSCommit", "Commit") for c in calls)
    assert calls[-1][0] == ("LMSFinish" if version == "1.2" else "Terminate")

    # One interaction per checked attempt, each with the fields its version has.
    got = interactions(state)
    assert [i["id"] for i in got] == ["exercise-context-value"] * 2 + ["exercise-sequential-steps", "exercise-vanishing-fraction"]
    response, wrong = ("student_response", "wrong") if version == "1.2" else ("learner_response", "incorrect")
    assert [i["type"] for i in got] == ["numeric", "numeric", "fill-in", "numeric"]
    assert [i[response] for i in got] == ["2", "1.9", "1000,1" if version == "1.2" else "1000[,]1",
                                          format(want["answer"][0], ".10f").rstrip("0")]
    assert [i["result"] for i in got] == [wrong, "correct", "correct", "correct"]
    for i in got:
        if version == "1.2":
            assert re.fullmatch(r"\d\d:\d\d:\d\d", i["time"]) and re.fullmatch(r"\d{4}:\d\d:\d\d\.\d\d", i["latency"])
        else:
            assert re.fullmatch(r"20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d\.\d\dZ", i["timestamp"])
            assert re.fullmatch(r"PT(\d+H)?(\d+M)?\d+\.\d\dS", i["latency"])
    if version == "2004":
        assert got[3]["description"].startswith(f"New numbers (set {seed})")

    # A new launch, in a browser with no local copy, from the LMS's saved data: the answers, the
    # progress and the drawn numbers come back, and new attempts are added after the old ones.
    shutil.rmtree(folder / "content")
    harness(folder, version, path, initial=state["cmi"])

    def relaunch(frame):
        assert "solved this one before" in frame.locator("#exercise-context-value .exercise-feedback").text_content()
        assert "4 of 9" in frame.locator(".exercise-summary").text_content()
        frame.locator("#exercise-vanishing-fraction[data-variant-state='ready']").wait_for(timeout=90_000)
        shown = {k: frame.locator(f"#exercise-vanishing-fraction [data-var='{k}']").text_content() for k in want["values"]}
        assert shown == want["values"]
        assert check(frame, "#exercise-vanishing-fraction", "Largest fraction", "0.0015").startswith("✗")

    _, _, state = run_session(browser, origin, relaunch)
    assert [i["id"] for i in interactions(state)][-2:] == ["exercise-vanishing-fraction"] * 2
    assert len(interactions(state)) == 5


@pytest.mark.browser
def test_a_value_the_lms_refuses_loses_nothing_else(browser, package, lms_server):
    version, path = package
    folder, origin = lms_server
    harness(folder, version, path, extra=REFUSE_FIRST_RESPONSE)

    def attempts(frame):
        assert check(frame, "#exercise-context-value", "Context value", "1,9") == "✓ Correct."
        assert check(frame, "#exercise-context-value", "Context value", "2").startswith("✗")

    _, calls, state = run_session(browser, origin, attempts)
    first, second = interactions(state)
    response = "student_response" if version == "1.2" else "learner_response"
    # The refused response was sent again as free text under the most permissive type ...
    assert first["id"] == "exercise-context-value" and first["result"] == "correct"
    assert (first["type"], first[response]) == (("fill-in", "1,9") if version == "1.2" else ("other", "1,9"))
    assert first["latency"]
    # ... and the next attempt, the score and the suspend data went through as usual.
    assert (second["type"], second[response]) == ("numeric", "2")
    assert dict(calls)["cmi.suspend_data"]


CONTEXT_VECTOR = ("def context_vector(scores, H):\n"
                  "    w = np.exp(scores - scores.max())\n"
                  "    return (w / w.sum()) @ H")


@pytest.mark.browser
def test_a_code_exercise_checked_in_the_lms_is_one_interaction_and_its_draft_comes_back(browser, package, lms_server):
    version, path = package
    folder, origin = lms_server
    harness(folder, version, path)
    ex = "#exercise-code-context-vector"

    def solve(frame):
        box = frame.locator(ex)
        box.scroll_into_view_if_needed()
        field = box.get_by_label("Your context_vector (Python, numpy as np)", exact=False)
        type_code(field.page, field, "def context_vector(scores, H):\n    return H[0]")   # wrong
        box.get_by_role("button", name="Check").click()
        frame.locator(f"{ex}[data-state='wrong']").wait_for(timeout=120_000)
        type_code(field.page, field, CONTEXT_VECTOR)
        box.get_by_role("button", name="Check").click()
        frame.locator(f"{ex}[data-state='correct']").wait_for(timeout=60_000)

    _, calls, state = run_session(browser, origin, solve)
    got = interactions(state)
    assert [i["id"] for i in got] == ["exercise-code-context-vector"] * 2
    response, wrong = ("student_response", "wrong") if version == "1.2" else ("learner_response", "incorrect")
    assert [i["type"] for i in got] == (["performance"] * 2 if version == "1.2" else ["other"] * 2)
    assert [i["result"] for i in got] == [wrong, "correct"]
    # 1.2 keeps one line of at most 255 characters (newlines written as \n); 2004 keeps the code.
    sent = got[1][response]
    assert sent == (CONTEXT_VECTOR.replace("\n", "\\n") if version == "1.2" else CONTEXT_VECTOR)
    assert dict(calls)["cmi.core.score.raw" if version == "1.2" else "cmi.score.raw"] == "1"

    # Relaunched elsewhere from the LMS's data alone: solved, with the draft in the field.
    shutil.rmtree(folder / "content")
    harness(folder, version, path, initial=state["cmi"])

    def relaunch(frame):
        assert "1 of 9" in frame.locator(".exercise-summary").text_content()
        frame.locator(f"{ex}[data-state='correct']").wait_for()
        lines = frame.locator(f"{ex} :is(.cm-line, textarea)")
        box_text = frame.locator(ex).evaluate(
            "(b) => { const l = [...b.querySelectorAll('.cm-line')]; return l.length ? l.map((x) => x.textContent).join('\\n') : b.querySelector('textarea').value; }")
        assert box_text == CONTEXT_VECTOR and lines.count() >= 1

    run_session(browser, origin, relaunch)


@pytest.mark.browser
def test_standalone_the_module_throws_nothing_and_saves_locally(page, server):
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/module/#exercise-context-value", wait_until="load")
    page.wait_for_selector(".exercise-summary")
    box = page.locator("#exercise-context-value")
    box.get_by_label("Context value").fill("1.9")
    box.get_by_role("button", name="Check").click()
    saved = json.loads(page.evaluate("() => localStorage.getItem('seqlabs:progress:v1')"))
    assert saved["exercises"]["exercise-context-value"]["correct"] is True
    assert errors == []
