"""`lockstep view ... -o DIR`: the site written as a folder that a browser opens from disk.

A page opened from a file may not fetch other files, but it may load scripts: so each data
address becomes a script `<address>.js` that hands its content to the page
(`LS.deliver("<address>", content)`: JSON as it is, binary blobs as base64), and the page
loads those when it finds itself opened from a file. The page's own files and the camera
pictures are copied as they are.
"""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

from runner.errors import ViewError
from runner.view.site import BINARY, JSON, PAGE, PAGE_FILES, Site


def write_static(site: Site, out: Path) -> int:
    """Writes the site into folder `out` (made if missing); returns the number of files."""
    if out.exists() and not out.is_dir():
        raise ViewError(f"-o {out}: not a folder")
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    for address in site.addresses():
        target = out / address
        target.parent.mkdir(parents=True, exist_ok=True)
        if address in PAGE_FILES:
            shutil.copyfile(PAGE / address, target)
        else:
            reply = site.get(address)
            if reply.content_type == JSON:
                payload = reply.body.decode("utf-8")
            elif reply.content_type == BINARY:
                payload = json.dumps(base64.b64encode(reply.body).decode("ascii"))
            else:
                target.write_bytes(reply.body)
                count += 1
                continue
            script = f"LS.deliver({json.dumps(address)}, {payload});\n"
            target.with_name(target.name + ".js").write_text(script, encoding="utf-8")
        count += 1
    return count
