package io.amlease.am.master;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker command reaches bash as the user wrote it, through the line the NodeManager's launch
 * script wraps every container command in ({@code exec /bin/bash -c "…"}, Hadoop's ContainerLaunch).
 * Both run in a real bash here; the same command run by bash directly is what it must print.
 */
class WorkerCommandTest {
    private static final String COMMAND = "printf '%s\\n' \"double\" 'single' \"it's\" 'a\\b' \"$((6 * 7))\" "
            + "`echo back` \"$(echo sub)\"; echo \"$$\" > pid; test \"$(cat pid)\" = \"$$\" && echo own-pid";

    @Test
    void quotesDollarsAndBackslashesSurviveTheNodeManagersDoubleQuotes(@TempDir Path dir) throws Exception {
        String direct = run(dir, "bash", "-c", COMMAND);
        assertThat(direct).isEqualTo("double\nsingle\nit's\na\\b\n42\nback\nsub\nown-pid\n");

        Path launch = dir.resolve("launch_container.sh");
        Files.writeString(launch, "exec /bin/bash -c \""
                + Workers.containerCommand(COMMAND).replace("<LOG_DIR>", dir.toString()) + "\"\n");
        run(dir, "bash", launch.toString());
        assertThat(dir.resolve("worker.stdout")).content().isEqualTo(direct);
        assertThat(dir.resolve("worker.stderr")).content().isEmpty();
    }

    private static String run(Path dir, String... command) throws Exception {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
