package io.amlease.testkit.field;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a short system command (nft, useradd, pkill) and fails with its output if it fails. */
final class Commands {
    private static final Duration WITHIN = Duration.ofSeconds(30);

    private Commands() {}

    static String run(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(WITHIN.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not finish within " + WITHIN);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted running " + String.join(" ", command), e);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " exited " + p.exitValue() + ": " + out.strip());
        }
        return out;
    }

    /** Like {@link #run} but an exit status in {@code ok} is not a failure (pkill's 1: no process). */
    static int runAllowing(List<String> command, int... ok) throws IOException {
        try {
            run(command);
            return 0;
        } catch (IOException e) {
            for (int code : ok) {
                if (e.getMessage().contains(" exited " + code + ":")) {
                    return code;
                }
            }
            throw e;
        }
    }
}
