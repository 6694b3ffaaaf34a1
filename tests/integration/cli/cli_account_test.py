#!/usr/bin/env python3
"""arbiter-cli login, whoami and logout against a real arbiter-server: the password is read from
standard input (not a terminal), the session is stored beside the seat tokens readable by the
user only, every connection says hello with it (whoami prints the account), a wrong password
stores nothing, and logout ends the session on the server and forgets it.

Usage: cli_account_test.py --server PATH --cli PATH
"""
import json
import os
import stat
import subprocess
import urllib.request

from cli_game_test import check, run_against_server

PASSWORD = "correct horse battery"


def sign_up(port, username):
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/account", method="POST",
        data=json.dumps({"username": username, "password": PASSWORD}).encode(),
        headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        check(response.status == 201, f"sign-up answered {response.status}")


def run(args, port, workdir):
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(workdir, "config"))
    server = f"ws://127.0.0.1:{port}/ws"

    def cli(*arguments, password=None):
        done = subprocess.run([args.cli, "--server", server, *arguments], env=env,
                              input=password, capture_output=True, text=True, timeout=60)
        return done.returncode, done.stdout.strip(), done.stderr.strip()

    sign_up(port, "Anna_B")
    code, out, _ = cli("whoami")
    check(code == 0 and out == "guest", f"whoami before login: {code} {out!r}")

    code, out, err = cli("login", "--user", "anna_b", password="not the password\n")
    check(code == 1, f"a wrong password fails: {code} {out!r} {err!r}")
    tokens = os.path.join(workdir, "config", "arbiter", "tokens.json")
    check(not os.path.exists(tokens) or "@session" not in open(tokens).read(),
          "a failed login stores nothing")

    code, out, err = cli("login", "--user", "anna_b", password=PASSWORD + "\n")
    check(code == 0 and out == "signed in as Anna_B", f"login: {code} {out!r} {err!r}")
    check(stat.S_IMODE(os.stat(tokens).st_mode) == 0o600, "the token file is the user's only")
    stored = json.load(open(tokens))[server]["@session"]
    check(stored["username"] == "Anna_B" and len(stored["token"]) == 32, f"stored: {stored}")
    check(PASSWORD not in open(tokens).read(), "the password is never stored")

    code, out, _ = cli("whoami")
    check(code == 0 and out == "Anna_B", f"whoami after login: {code} {out!r}")

    code, out, err = cli("logout")
    check(code == 0 and out == "signed out Anna_B", f"logout: {code} {out!r} {err!r}")
    check("@session" not in open(tokens).read(), "logout forgets the session")
    code, out, _ = cli("whoami")
    check(code == 0 and out == "guest", f"whoami after logout: {code} {out!r}")

    # The ended session signs nothing in: a hello with it is refused.
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/account/password", method="POST",
        data=json.dumps({"password": PASSWORD, "new_password": "another long phrase"}).encode(),
        headers={"content-type": "application/json",
                 "authorization": f"Bearer {stored['token']}"})
    try:
        urllib.request.urlopen(request, timeout=10)
        check(False, "the session outlived logout")
    except urllib.error.HTTPError as refused:
        check(refused.code == 401, f"after logout the token answers {refused.code}")


if __name__ == "__main__":
    run_against_server("account", run)
