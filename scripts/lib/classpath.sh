# Sourced by scripts/avrun and scripts/shmav: prints the classpath of the project's jar and its
# runtime dependencies, building them first when they are missing or older than the sources, so
# that the scripts work on a fresh clone with only a JDK and Maven.
#
# SHMAV_CLASSPATH, when set, is used as is and nothing is built (the integration tests set it to
# their own classpath, so that a test never starts a second Maven in the tree being verified).

shmav_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# The project jar (not sources/javadoc jars), or nothing.
shmav_jar() {
    local jar
    for jar in "$shmav_root"/target/shmav-*.jar; do
        case "$jar" in *-sources.jar|*-javadoc.jar|*-tests.jar) continue ;; esac
        [ -f "$jar" ] && { printf '%s\n' "$jar"; return; }
    done
}

# True when the jar or the classpath file is missing, or a source or the pom is newer than the jar.
shmav_stale() {
    local jar
    jar="$(shmav_jar)"
    [ -n "$jar" ] && [ -f "$shmav_root/target/classpath.txt" ] || return 0
    [ -n "$(find "$shmav_root/src/main" "$shmav_root/pom.xml" -newer "$jar" -print -quit 2>/dev/null)" ]
}

shmav_build() {
    local tool="$1"
    command -v mvn >/dev/null || { echo "$tool: Maven (mvn) is needed to build shmav on first use" >&2; return 1; }
    local log="$shmav_root/target/scripts-build.log"
    echo "$tool: building shmav (first use, or sources changed; log in target/scripts-build.log) ..." >&2
    if ! (cd "$shmav_root" && mvn -B -Dstyle.color=never -Dmaven.test.skip=true package) >"$log" 2>&1; then
        tail -n 30 "$log" >&2
        echo "$tool: the build failed; the whole log is in $log" >&2
        return 1
    fi
}

# shmav_classpath TOOL: prints the classpath, building under a lock if needed.
shmav_classpath() {
    local tool="$1"
    if [ -n "${SHMAV_CLASSPATH:-}" ]; then
        printf '%s\n' "$SHMAV_CLASSPATH"
        return
    fi
    if shmav_stale; then
        mkdir -p "$shmav_root/target"
        # One build at a time when several scripts start together on a fresh clone.
        exec 9>"$shmav_root/target/.scripts-build.lock"
        flock 9
        if shmav_stale; then
            shmav_build "$tool" || return 1
        fi
        exec 9>&-
    fi
    printf '%s:%s\n' "$(shmav_jar)" "$(cat "$shmav_root/target/classpath.txt")"
}

# shmav_java: the java to run, from JAVA_HOME when set.
shmav_java() {
    if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
        printf '%s\n' "$JAVA_HOME/bin/java"
    else
        command -v java || { echo "shmav: java (17 or later) is not on PATH" >&2; return 1; }
    fi
}
