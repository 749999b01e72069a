#!/usr/bin/env bash
# Builds the Java SDK offline with the JDK and Debian's Jackson jars (apt-get install
# openjdk-17-jdk-headless libjackson2-databind-java junit4):
#   sdks/java/build.sh          → target/baton-executor-sdk-<version>.jar (+ -sources.jar) and
#                                  target/baton-executor-examples-<version>.jar
#   sdks/java/build.sh test     → the same, then the unit tests (JUnit 4)
#   sdks/java/build.sh classpath → prints the classpath to run the examples with
# The version is the one of pom.xml (what Maven users build). Jackson comes from
# JACKSON_DIR (default /usr/share/java).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
VERSION=$(sed -n 's|^  <version>\(.*\)</version>|\1|p' pom.xml | head -1)
JARS=${JACKSON_DIR:-/usr/share/java}
DEPS="$JARS/jackson-databind.jar:$JARS/jackson-core.jar:$JARS/jackson-annotations.jar"
SDK_JAR=target/baton-executor-sdk-$VERSION.jar
EXAMPLES_JAR=target/baton-executor-examples-$VERSION.jar

if [ "${1:-}" = classpath ]; then
  echo "$PWD/$SDK_JAR:$PWD/$EXAMPLES_JAR:$DEPS"
  exit 0
fi

for jar in jackson-databind jackson-core jackson-annotations; do
  [ -f "$JARS/$jar.jar" ] || { echo "build.sh: $JARS/$jar.jar is missing (apt-get install libjackson2-databind-java, or set JACKSON_DIR)" >&2; exit 1; }
done

rm -rf target/classes target/examples target/test-classes
mkdir -p target/classes target/examples
javac --release 17 -Xlint:all,-serial -XDignore.symbol.file -nowarn -d target/classes -cp "$DEPS" $(find src/main/java -name '*.java')
cat > target/MANIFEST.MF <<MF
Implementation-Title: Baton executor SDK
Implementation-Version: $VERSION
Implementation-Vendor: Baton
Automatic-Module-Name: dev.baton.executor
MF
# Each jar is written beside its place and renamed into it: a JVM running the old one keeps its file.
jar --create --file "$SDK_JAR.tmp" --manifest target/MANIFEST.MF -C target/classes . && mv "$SDK_JAR.tmp" "$SDK_JAR"
jar --create --file "target/baton-executor-sdk-$VERSION-sources.jar" -C src/main/java .
javac --release 17 -d target/examples -cp "$SDK_JAR:$DEPS" $(find examples/src -name '*.java')
printf 'Implementation-Title: Baton executor SDK examples\nImplementation-Version: %s\nMain-Class: dev.baton.examples.DemoExecutor\n' "$VERSION" > target/EXAMPLES.MF
jar --create --file "$EXAMPLES_JAR.tmp" --manifest target/EXAMPLES.MF -C target/examples . && mv "$EXAMPLES_JAR.tmp" "$EXAMPLES_JAR"
echo "built $SDK_JAR and $EXAMPLES_JAR"

if [ "${1:-}" = test ]; then
  JUNIT=$JARS/junit4.jar:$JARS/hamcrest-core.jar
  [ -f "$JARS/junit4.jar" ] || { echo "build.sh test: $JARS/junit4.jar is missing (apt-get install junit4)" >&2; exit 1; }
  mkdir -p target/test-classes
  javac --release 17 -d target/test-classes -cp "target/classes:$DEPS:$JUNIT" $(find src/test/java -name '*.java')
  classes=$(cd src/test/java && find . -name '*Test.java' | sed 's|^\./||; s|\.java$||; s|/|.|g')
  java -cp "target/test-classes:target/classes:$DEPS:$JUNIT" org.junit.runner.JUnitCore $classes
fi
