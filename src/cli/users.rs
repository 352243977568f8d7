//! `migrate`, `user …` and `token …`.

use super::{TokenCommand, UserCommand};
use crate::config::DatabaseArgs;
use crate::domain::permissions::Role;
use crate::service::Service;

async fn open(db: &DatabaseArgs) -> Result<Service, String> {
    Service::open_for_admin(&db.database_url)
        .await
        .map_err(|e| e.to_string())
}

pub async fn migrate(db: &DatabaseArgs) -> Result<(), String> {
    open(db).await?;
    println!("database is up to date");
    Ok(())
}

pub async fn user(cmd: UserCommand, db: &DatabaseArgs) -> Result<(), String> {
    match cmd {
        UserCommand::Create { login, role } => {
            let role = Role::parse(&role).ok_or("unknown role")?;
            let service = open(db).await?;
            let (user, secret) = service
                .create_user(&login, role)
                .await
                .map_err(|e| e.to_string())?;
            println!(
                "created user {} (id {}, role {})",
                user.login,
                user.id,
                role.as_str()
            );
            println!("application password (shown once):");
            println!("{secret}");
        }
        UserCommand::List => {
            for u in open(db).await?.users().await.map_err(|e| e.to_string())? {
                println!("{}\t{}\t{}", u.id, u.login, u.role.as_str());
            }
        }
        UserCommand::Delete { login } => {
            let service = open(db).await?;
            service
                .delete_user(&login)
                .await
                .map_err(|e| e.to_string())?;
            println!("deleted user {login}");
        }
    }
    Ok(())
}

pub async fn token(cmd: TokenCommand, db: &DatabaseArgs) -> Result<(), String> {
    let service = open(db).await?;
    match cmd {
        TokenCommand::Create { login, name } => {
            let secret = service
                .create_token(&login, &name)
                .await
                .map_err(|e| e.to_string())?;
            println!("bearer token for {login} (shown once):");
            println!("{secret}");
        }
        TokenCommand::Revoke { token } => {
            service.revoke(&token).await.map_err(|e| e.to_string())?;
            println!("revoked");
        }
    }
    Ok(())
}
