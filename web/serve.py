#!/usr/bin/env python3
"""Serves the page (a folder, default build-web/site) on 127.0.0.1 and takes
the page's report: the body of a POST to /result is written to --result, and
the server ends after it when --once is given (web/test.sh).

    python3 web/serve.py [--dir build-web/site] [--port 8000] [--port-file F] [--result F --once]

Port 0 picks a free port; --port-file receives the one taken.
"""
import argparse
import functools
import http.server
import os
import threading


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=os.path.join(os.path.dirname(__file__), "..", "build-web", "site"))
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--port-file")
    parser.add_argument("--result")
    parser.add_argument("--once", action="store_true", help="end after the first report")
    args = parser.parse_args()

    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm",
                          ".js": "text/javascript"}

        def do_POST(self):
            if self.path != "/result" or not args.result:
                self.send_error(404)
                return
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with open(args.result + ".part", "wb") as out:
                out.write(body)
            os.replace(args.result + ".part", args.result)
            self.send_response(204)
            self.end_headers()
            if args.once:
                threading.Thread(target=self.server.shutdown, daemon=True).start()

        def log_message(self, format, *values):
            pass  # the test's output is the verdict, not the requests

    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port),
                                             functools.partial(Handler, directory=args.dir))
    if args.port_file:
        with open(args.port_file, "w") as out:
            out.write(str(server.server_address[1]))
    else:
        print(f"serving {os.path.abspath(args.dir)} at http://127.0.0.1:{server.server_address[1]}/", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
