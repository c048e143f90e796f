#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder's image, in /autograder/source (the zip's contents).
# It installs what is missing (a JDK 17 or later, Maven and python3 for the sandbox's launcher, from Ubuntu's packages: a
# JDK already there is kept, never upgraded), makes the unprivileged users student code runs as, builds the course with a Maven repository of its
# own inside this folder, copies the jars the grader needs into grader/target/autograder-lib and writes the class
# path run_autograder uses from them alone: every dependency is fetched now, so grading runs offline, without Maven,
# and nothing outside this folder (no ~/.m2 that another checkout's `mvn install` replaces) is read when grading.
# Last it makes this folder unreadable to other users (docs/grading-integrity.md) and grades the stubs once.
#
# Overridable for a local try: SHARDLINGS_MAVEN_REPO (default: .m2-autograder in this folder).
set -euo pipefail
cd "$(dirname "$0")"
here="$PWD"

# The major version of the JDK on the PATH (0 when there is none, or no javac beside it).
jdk_major() {
  command -v javac >/dev/null 2>&1 || { echo 0; return; }
  java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p'
}

missing=()
major="$(jdk_major)"
if [ "${major:-0}" -lt 17 ]; then
  missing+=(openjdk-17-jdk-headless)
fi
command -v mvn >/dev/null 2>&1 || missing+=(maven)
# The sandbox's launcher (no network, no writes outside its folders: docs/grading-integrity.md#os-level-barriers).
[ -x /usr/bin/python3 ] || missing+=(python3)
if [ "${#missing[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup.sh: JDK $major and Maven are installed; nothing to install."
fi

bash create-sandbox-user.sh

repo="${SHARDLINGS_MAVEN_REPO:-$here/.m2-autograder}"
mvn -B -q -Dmaven.repo.local="$repo" install -DskipTests -Djacoco.skip=true
lib="$here/grader/target/autograder-lib"
rm -rf "$lib"
mvn -B -q -Dmaven.repo.local="$repo" -pl grader dependency:copy-dependencies -DincludeScope=test \
    -DoutputDirectory="$lib"
# The grader's own classes go first, then its libraries, all under this folder.
{
  printf '%s:%s' "$here/grader/target/test-classes" "$here/grader/target/classes"
  for jar in "$lib"/*.jar; do
    printf ':%s' "$jar"
  done
} > grader/target/gradescope-classpath.txt

# The course, the grader and the results are root's alone: the sandbox user (and anyone else) can neither read
# nor write them; the judge, as root, still reads them and copies what the sandbox needs.
chmod -R go-rwx "$here"

# A dry run on the stubs: the autograder works before the first student submits.
dry="$(mktemp -d)"
mkdir -p "$dry/submission"
cp exercises/src/main/java/dev/shardlings/course/*.java "$dry/submission/"
AUTOGRADER_ROOT="$dry" SHARDLINGS_COURSE="$here" GRADE_ONLY='Part08RingShiftTest' SHARDLINGS_ASSIGNMENT=course \
    bash ./run_autograder
grep -q '"tests"' "$dry/results/results.json"
rm -rf "$dry"
