//! Making sure the PostgreSQL database a URL names exists before the server uses it,
//! so that the README's one command works on a fresh PostgreSQL as written.

use std::str::FromStr;
use std::time::Duration;

use tokio_postgres::error::SqlState;

use super::StoreError;

/// Creates the database `url` names if it does not exist and the role may create
/// databases; otherwise says exactly what is missing and how to create it.
pub async fn ensure_database(url: &str) -> Result<(), StoreError> {
    let mut config = tokio_postgres::Config::from_str(url)
        .map_err(|e| StoreError::Internal(format!("invalid database URL: {e}")))?;
    config.connect_timeout(Duration::from_secs(3));
    let Err(e) = connect(&config).await else {
        return Ok(());
    };
    if e.code() != Some(&SqlState::INVALID_CATALOG_NAME) {
        return Err(unreachable_database(&config, &e));
    }
    let name = config.get_dbname().unwrap_or_default().to_string();
    let role = config.get_user().unwrap_or_default().to_string();
    // Any database the role may connect to can create another; `postgres` is the
    // one every cluster has, `template1` the one it cannot lack.
    let mut maintenance = config.clone();
    let mut last = e;
    for db in ["postgres", "template1"] {
        maintenance.dbname(db);
        match connect(&maintenance).await {
            Ok(client) => return create(&client, &name, &role).await,
            Err(e) => last = e,
        }
    }
    Err(StoreError::Unavailable(format!(
        "database \"{name}\" does not exist, and neither \"postgres\" nor \"template1\" \
         could be reached to create it ({}); create it with `createdb {name}`",
        describe(&last)
    )))
}

async fn connect(
    config: &tokio_postgres::Config,
) -> Result<tokio_postgres::Client, tokio_postgres::Error> {
    let (client, connection) = config.connect(tokio_postgres::NoTls).await?;
    tokio::spawn(connection);
    Ok(client)
}

async fn create(client: &tokio_postgres::Client, name: &str, role: &str) -> Result<(), StoreError> {
    let quoted = format!("\"{}\"", name.replace('"', "\"\""));
    match client
        .batch_execute(&format!("CREATE DATABASE {quoted}"))
        .await
    {
        Ok(()) => {
            tracing::info!(database = %name, "created the PostgreSQL database");
            Ok(())
        }
        // Another instance starting at the same moment created it first.
        Err(e) if e.code() == Some(&SqlState::DUPLICATE_DATABASE) => Ok(()),
        Err(e) if e.code() == Some(&SqlState::INSUFFICIENT_PRIVILEGE) => {
            Err(StoreError::Unavailable(format!(
                "database \"{name}\" does not exist, and role \"{role}\" may not create \
                 databases; as a superuser run `CREATE DATABASE {quoted} OWNER \"{role}\";` \
                 (or `createdb -O {role} {name}`), or grant it `ALTER ROLE \"{role}\" CREATEDB;`"
            )))
        }
        Err(e) => Err(StoreError::Unavailable(format!(
            "database \"{name}\" does not exist and creating it failed: {}",
            describe(&e)
        ))),
    }
}

fn unreachable_database(config: &tokio_postgres::Config, e: &tokio_postgres::Error) -> StoreError {
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .map(|h| match h {
            tokio_postgres::config::Host::Tcp(h) => h.clone(),
            tokio_postgres::config::Host::Unix(p) => p.display().to_string(),
        })
        .collect();
    StoreError::Unavailable(format!(
        "cannot connect to PostgreSQL at {}: {}",
        hosts.join(","),
        describe(e)
    ))
}

/// PostgreSQL's own message when it sent one ("db error" alone says nothing).
fn describe(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => db.message().to_string(),
        None => match std::error::Error::source(e) {
            Some(cause) => format!("{e}: {cause}"),
            None => e.to_string(),
        },
    }
}
