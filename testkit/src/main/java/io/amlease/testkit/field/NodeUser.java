package io.amlease.testkit.field;

import java.io.IOException;
import java.util.List;

/**
 * The Unix user of one simulated node: its NodeManager and every container it launches run as it,
 * so that nftables can cut everything the node sends ({@code meta skuid}) and a freeze can stop
 * every process of the node. Each ZooKeeper server has one too, to be cut off from its peers. Created once on this machine (a system user without a home or a
 * shell) and reused.
 */
public record NodeUser(String name, int uid, int gid) {

    public static NodeUser ensure(String name) throws IOException {
        try {
            Commands.run(List.of("id", "-u", name));
        } catch (IOException absent) {
            Commands.runAllowing(List.of("useradd", "--system", "--no-create-home", "--user-group",
                    "--shell", "/usr/sbin/nologin", name), 9); // 9: made meanwhile by another run.
        }
        int uid = Integer.parseInt(Commands.run(List.of("id", "-u", name)).strip());
        int gid = Integer.parseInt(Commands.run(List.of("id", "-g", name)).strip());
        return new NodeUser(name, uid, gid);
    }

    /** The command prefix that runs a program as this user, in the same process (no fork). */
    public List<String> asUser() {
        return List.of("setpriv", "--reuid=" + uid, "--regid=" + gid, "--clear-groups", "--");
    }
}
