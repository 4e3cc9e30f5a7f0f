// The postgres jest project: every gateway a test starts runs on PostgreSQL.
process.env.LEADCHAT_TEST_BACKEND = 'postgres';
