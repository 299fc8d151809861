// A throw-away self-signed certificate for the fake https://chatgpt.com, made at test time with openssl
// (browsers are told to accept it: Chromium --ignore-certificate-errors, Firefox BiDi acceptInsecureCerts).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function selfSignedCert(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), "fake-chatgpt-cert-"));
  try {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=chatgpt.com",
        "-addext",
        "subjectAltName=DNS:chatgpt.com,DNS:*.chatgpt.com,IP:127.0.0.1",
        "-addext",
        "basicConstraints=critical,CA:FALSE",
        "-addext",
        "extendedKeyUsage=serverAuth",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    return {
      cert: readFileSync(join(dir, "cert.pem"), "utf8"),
      key: readFileSync(join(dir, "key.pem"), "utf8"),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
