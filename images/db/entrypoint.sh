#!/usr/bin/env bash
# Initialises the data directory on first start (a named volume keeps it),
# and on every start makes sure the slurm user exists with the password from
# the secret, so a regenerated password never locks slurmdbd out.
set -euo pipefail

datadir=/var/lib/mysql
if [ ! -d "$datadir/mysql" ]; then
	echo "db: initialising $datadir"
	mariadb-install-db --user=mysql --datadir="$datadir" --skip-test-db \
		--auth-root-authentication-method=socket >/dev/null
fi
chown -R mysql:mysql "$datadir"

password=$(cat /run/secrets/db_password)
init=/run/mysqld/init.sql
install -d -o mysql -g mysql /run/mysqld
umask 077
cat > "$init" <<SQL
CREATE USER IF NOT EXISTS 'slurm'@'%' IDENTIFIED BY '$password';
ALTER USER 'slurm'@'%' IDENTIFIED BY '$password';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'%';
FLUSH PRIVILEGES;
SQL
chown mysql:mysql "$init"
exec mariadbd --user=mysql --datadir="$datadir" --init-file="$init"
