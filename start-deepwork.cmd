@echo off
rem Drop a project folder on this file, or run it inside one: opens the deepwork pult for that folder
rem in the default browser. Finds deepwork by its own location, so it works from any folder.
setlocal
chcp 65001 >nul
set "HERE=%~dp0"
if "%~1"=="" (set "PROJECT=%CD%") else (set "PROJECT=%~1")
if not exist "%PROJECT%\" (
  echo deepwork: "%PROJECT%" is not a folder. Drop a project folder on start-deepwork.cmd.
  pause
  exit /b 2
)
where node >nul 2>nul || (
  echo deepwork needs Node.js 20 or newer: https://nodejs.org
  pause
  exit /b 1
)
if not exist "%HERE%node_modules\" (
  echo deepwork: run "npm install" in "%HERE%" first.
  pause
  exit /b 1
)
cd /d "%PROJECT%"
node "%HERE%bin\deepwork.js" ui
if errorlevel 1 pause
