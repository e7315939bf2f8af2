"""Reading back the PDFs reportlab writes, without a PDF library: page sizes and decoded content streams."""

import base64
import re
import zlib


def pdf_pages(data: bytes) -> list[tuple[tuple[float, float], str]]:
    """(width, height) in points and the decoded content stream of each page, in page order."""
    objects = {int(m.group(1)): m.group(2) for m in re.finditer(rb"(\d+) 0 obj\s*(.*?)endobj", data, re.S)}
    kids = re.search(rb"/Kids \[([^\]]*)\]", data).group(1)
    pages = []
    for ref in re.findall(rb"(\d+) 0 R", kids):
        page = objects[int(ref)]
        box = [float(v) for v in re.search(rb"/MediaBox \[([^\]]*)\]", page).group(1).split()]
        content = objects[int(re.search(rb"/Contents (\d+) 0 R", page).group(1))]
        header, stream = content.split(b"stream", 1)
        stream = stream.strip(b"\r\n").rsplit(b"endstream", 1)[0].strip()
        if b"ASCII85Decode" in header:
            stream = base64.a85decode(stream.removeprefix(b"<~").removesuffix(b"~>"), ignorechars=b" \t\r\n")
        if b"FlateDecode" in header:
            stream = zlib.decompress(stream)
        pages.append(((box[2] - box[0], box[3] - box[1]), stream.decode("latin-1")))
    return pages
