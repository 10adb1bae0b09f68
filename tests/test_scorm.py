"""SCORM 1.2 and 2004 packages: a well-formed manifest listing every file, and the module
inside a scorm-again LMS harness reporting progress, score and suspend data."""
import functools
import http.server
import json
import shutil
import threading
import xml.etree.ElementTree as ET
import zipfile

import pytest

from conftest import OPEN_SHADOW_ROOTS, ROOT, OriginGuard, QuietHandler
from seqbuild import scorm

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


def harness(tmp_path, version, package_path, initial=None):
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


def run_session(browser, origin, answer):
    context = browser.new_context()
    context.add_init_script(OPEN_SHADOW_ROOTS)
    guard = OriginGuard(origin)
    context.route("**/*", guard.route)
    page = context.new_page()
    page.goto(f"{origin}/lms.html", wait_until="load")
    frame = page.frame_locator("#sco")
    frame.locator(".exercise-summary").wait_for()
    restored = frame.locator("#exercise-context-value .exercise-feedback").text_content()
    if answer:
        box = frame.locator("#exercise-context-value")
        box.get_by_label("Context value").fill("1.9")
        box.get_by_role("button", name="Check").click()
        frame.locator("#exercise-extend textarea").fill("Only the last state reaches the decoder.")
        frame.locator("#exercise-extend").get_by_role("button", name="Compare with the solution").click()
    # Closing the SCO (the LMS removes its frame) must commit and terminate.
    page.evaluate("() => document.getElementById('sco').remove()")
    calls = page.evaluate("() => window.calls")
    context.close()
    assert guard.off_origin == []
    return restored, calls


@pytest.mark.browser
def test_the_module_reports_to_the_lms_and_restores_answers(browser, package, lms_server):
    version, path = package
    folder, origin = lms_server
    harness(folder, version, path)
    restored, calls = run_session(browser, origin, answer=True)
    assert restored == ""
    values = dict(calls)
    if version == "1.2":
        assert values["cmi.core.score.raw"] == "2" and values["cmi.core.score.max"] == "8"
        assert values["cmi.core.score.min"] == "0" and values["cmi.core.lesson_status"] == "incomplete"
        assert values["cmi.core.exit"] == "suspend"
    else:
        assert values["cmi.score.raw"] == "2" and values["cmi.score.scaled"] == "0.2500"
        assert values["cmi.completion_status"] == "incomplete" and values["cmi.success_status"] == "unknown"
        assert values["cmi.exit"] == "suspend"
    suspend = values["cmi.suspend_data"]
    assert len(suspend) <= 4096
    assert json.loads(suspend)["exercise-context-value"][1] == 1
    init = "LMSInitialize" if version == "1.2" else "Initialize"
    assert calls[0][0] == init and any(c[0] in ("LMSCommit", "Commit") for c in calls)
    assert calls[-1][0] == ("LMSFinish" if version == "1.2" else "Terminate")
    # A new launch, in a browser with no local copy, restores the answers from suspend_data.
    shutil.rmtree(folder / "content")
    harness(folder, version, path, initial={"suspend_data": suspend})
    restored, _ = run_session(browser, origin, answer=False)
    assert "solved this one before" in restored


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
